import Events
import Glibc
import Infrastructure

let configuration = Configuration.loadOrExit(component: "NtfyWorker")
let logger = Logger(component: "NtfyWorker", minimumLevel: configuration.logLevel)
do {
  let service = try NtfyWorker.make(
    configuration: configuration, logger: logger, clock: SystemClock())
  exit(
    await ServiceRunner.run(
      service, logger: logger, grace: .seconds(configuration.shutdownGraceSeconds)))
} catch let error as ConfigurationError {
  // One clear line, as for every bad setting; `ntfy` deliveries stay queued until a worker
  // runs.
  StandardError.write(Redaction.redact("NtfyWorker: \(error)\n"))
  exit(2)
} catch let error as SigningKeys.Failure {
  StandardError.write(Redaction.redact("NtfyWorker: \(error)\n"))
  exit(2)
} catch {
  logger.error("cannot start", ["error": error])
  exit(1)
}
