import FoundationEssentials
import Infrastructure

extension ChannelWorker {
  /// What every channel worker's `main.swift` does, so each is one call: reads the
  /// configuration, builds the worker with `make` and runs it to its exit status. A setting
  /// the worker cannot start without (its key or credentials, the image key) is one clear
  /// line on standard error and status 2, as for every bad setting; the platform's
  /// deliveries stay queued until a worker runs.
  public static func main<Channel: PushChannel>(
    component: String,
    make: (Configuration, Logger, any WallClock) throws -> MonitoredService<ChannelService<Channel>>
  ) async -> Int32 {
    let configuration = Configuration.loadOrExit(component: component)
    let logger = Logger(component: component, minimumLevel: configuration.logLevel)
    let service: MonitoredService<ChannelService<Channel>>
    do {
      service = try make(configuration, logger, SystemClock())
    } catch let error as ConfigurationError {
      StandardError.write(Redaction.redact("\(component): \(error)\n"))
      return 2
    } catch let error as SigningKeys.Failure {
      StandardError.write(Redaction.redact("\(component): \(error)\n"))
      return 2
    } catch {
      logger.error("cannot start", ["error": error])
      return 1
    }
    return await ServiceRunner.run(
      service, logger: logger, grace: .seconds(configuration.shutdownGraceSeconds))
  }
}
