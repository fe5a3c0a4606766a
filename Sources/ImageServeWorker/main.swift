import Events
import Glibc
import Infrastructure

let configuration = Configuration.loadOrExit(component: "ImageServeWorker")
let logger = Logger(component: "ImageServeWorker", minimumLevel: configuration.logLevel)
do {
  let service = try ImageServeWorker.make(configuration: configuration, logger: logger)
  exit(
    await ServiceRunner.run(
      service, logger: logger,
      grace: .seconds(configuration.shutdownGraceSeconds)))
} catch let failure as SigningKeys.Failure {
  // A setting that cannot be used: one line naming it, as for any configuration error.
  StandardError.write(Redaction.redact("ImageServeWorker: \(failure.description)\n"))
  exit(2)
} catch {
  logger.error("cannot start", ["error": String(describing: error)])
  exit(1)
}
