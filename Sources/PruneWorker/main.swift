import Events
import Glibc
import Infrastructure

let configuration = Configuration.loadOrExit(component: "PruneWorker")
let logger = Logger(component: "PruneWorker", minimumLevel: configuration.logLevel)
do {
  exit(
    await ServiceRunner.run(
      try PruneWorker.make(configuration: configuration, logger: logger), logger: logger,
      grace: .seconds(configuration.shutdownGraceSeconds)))
} catch {
  logger.error("cannot start", ["error": error])
  exit(1)
}
