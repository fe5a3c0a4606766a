import FoundationEssentials
import Glibc

/// The start of every HTTPS test double (the Web Push, FCM and ntfy sandboxes): options
/// read from the command line (`--help` prints the usage and exits 0, a bad option exits 2
/// with one line), a logger at `MOWDECK_LOG_LEVEL`, the service run until a signal.
///
/// FoundationEssentials only, like the rest of `Infrastructure`: the workers link this
/// module, and `WorkerLinkageTests` holds them to it (ADR 0021).
public enum TestDoubleMain {
  /// `parse` throws an error of type `helpRequested` when help was asked for.
  public static func run<Options, S: Service>(
    _ component: String, usage: String, parse: ([String]) throws -> Options,
    helpRequested: any Error.Type, service makeService: (Options, Logger) throws -> S
  ) async -> Never {
    // A client that vanishes mid-answer must cost one connection, not the process.
    signal(SIGPIPE, SIG_IGN)
    let options: Options
    do {
      options = try parse(Array(CommandLine.arguments.dropFirst()))
    } catch let error where type(of: error) == helpRequested {
      print(usage)
      exit(0)
    } catch {
      StandardError.write("\(component): \(error)\n")
      exit(2)
    }
    let level = ProcessInfo.processInfo.environment["MOWDECK_LOG_LEVEL"]
      .flatMap(Logger.Level.init)
    let logger = Logger(component: component, minimumLevel: level ?? .info)
    let service: S
    do {
      service = try makeService(options, logger)
    } catch {
      StandardError.write("\(component): \(error)\n")
      exit(1)
    }
    exit(await ServiceRunner.run(service, logger: logger))
  }
}
