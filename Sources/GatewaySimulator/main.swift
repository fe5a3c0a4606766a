import Events
import Foundation
import Infrastructure

let environment = ProcessInfo.processInfo.environment
let options: SimulatorOptions
do {
  options = try SimulatorOptions.parse(
    Array(CommandLine.arguments.dropFirst()), environment: environment)
} catch {
  FileHandle.standardError.write(Data("GatewaySimulator: \(error)\n".utf8))
  exit(2)
}
let logger = Logger(component: "GatewaySimulator")
do {
  let frames = try FrameLibrary(directory: options.framesDirectory)
  let nats = try NATSClient.connect(url: options.natsURL, name: "GatewaySimulator", logger: logger)
  let simulator = Simulator(options: options, frames: frames, nats: nats, logger: logger)
  exit(await ServiceRunner.run(simulator, logger: logger))
} catch {
  logger.error("cannot start", ["error": error])
  exit(1)
}
