import Events
import Glibc
import Infrastructure

let configuration = Configuration.loadOrExit(component: "FanoutWorker")
let logger = Logger(component: "FanoutWorker", minimumLevel: configuration.logLevel)
do {
  let service = try FanoutWorker.make(
    configuration: configuration, logger: logger, clock: SystemClock())
  exit(
    await ServiceRunner.run(
      service, logger: logger,
      grace: .seconds(configuration.shutdownGraceSeconds)))
} catch {
  logger.error("cannot start", ["error": error])
  exit(1)
}
