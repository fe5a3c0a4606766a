import Events
import Glibc
import Infrastructure

let configuration = Configuration.loadOrExit(component: "PhotoWorker")
let logger = Logger(component: "PhotoWorker", minimumLevel: configuration.logLevel)
do {
  let service = try PhotoWorker.make(configuration: configuration, logger: logger)
  exit(
    await ServiceRunner.run(
      service, logger: logger,
      grace: .seconds(configuration.shutdownGraceSeconds)))
} catch {
  logger.error("cannot start", ["error": error])
  exit(1)
}
