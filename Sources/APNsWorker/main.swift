import Events
import Foundation

let configuration = Configuration.loadOrExit(component: "APNsWorker")
let logger = Logger(component: "APNsWorker", minimumLevel: configuration.logLevel)
do {
  let service = try APNsWorker.make(
    configuration: configuration, logger: logger, clock: SystemClock())
  exit(await ServiceRunner.run(service, logger: logger))
} catch let error as ConfigurationError {
  // One clear line, as for every bad setting; deliveries stay queued until a worker runs.
  FileHandle.standardError.write(Data("APNsWorker: \(error)\n".utf8))
  exit(2)
} catch let error as ProviderToken.Failure {
  FileHandle.standardError.write(Data("APNsWorker: \(error)\n".utf8))
  exit(2)
} catch let error as SigningKeys.Failure {
  FileHandle.standardError.write(Data("APNsWorker: \(error)\n".utf8))
  exit(2)
} catch {
  logger.error("cannot start", ["error": error])
  exit(1)
}
