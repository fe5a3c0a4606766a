import Foundation

extension WorkerProcess {
  /// The camera simulator (`GatewaySimulator`) with `arguments`, once it answers: a photo
  /// request sent before its subscription reaches nats-server fails `no_responders` (a
  /// clean-clone CI run lost all ten photos of a shutdown test so, 2026-12-02).
  public static func cameraSimulator(arguments: [String], environment: [String: String])
    async throws -> WorkerProcess
  {
    let process = try WorkerProcess(
      "GatewaySimulator", arguments: arguments, environment: environment)
    // A bound, not a bet: a loaded run once took over 10 s to start the process.
    try await eventually(timeout: .seconds(60), "the camera simulator to listen") {
      process.log.contains("camera simulator listening")
    }
    return process
  }
}
