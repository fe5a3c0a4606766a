import Events
import Foundation
import Infrastructure

/// The APNs sandbox as a process, with the test PKI and the settings an APNsWorker needs to
/// push to it: shared by the APNs tests, the end-to-end tests and the benchmarks.
public struct APNsSandboxHarness: Sendable {
  public static let teamID = "TEAM123456"
  public static let keyID = "KEY1234567"

  public let process: WorkerProcess
  public let port: Int
  public let pki: URL

  /// Makes (once) the CA, the sandbox's certificate and the APNs signing key.
  public static func pki() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mowdeck-pki")
    try runShell("'\(TestServers.repositoryPath("scripts/make-test-pki.sh"))' '\(directory.path)'")
    return directory
  }

  public static func start(
    environment: [String: String], record: URL, behaviourFile: URL? = nil
  ) async throws -> APNsSandboxHarness {
    let pki = try pki()
    var arguments = [
      "--listen", "127.0.0.1:0", "--cert", pki.appendingPathComponent("server.pem").path,
      "--key", pki.appendingPathComponent("server.key").path,
      "--public-key", pki.appendingPathComponent("apns-key.pub.pem").path,
      "--team-id", teamID, "--key-id", keyID, "--topic", "app.mowdeck.mobile",
      "--record", record.path,
    ]
    if let behaviourFile { arguments += ["--behaviour-file", behaviourFile.path] }
    let process = try WorkerProcess("APNsSandbox", arguments: arguments, environment: environment)
    return APNsSandboxHarness(
      process: process, port: try await listeningPort(of: process), pki: pki)
  }

  /// The settings that point an APNsWorker at this sandbox (both environments).
  public var workerEnvironment: [String: String] {
    [
      "MOWDECK_NOTIFICATIONS_APNS_URL": "https://127.0.0.1:\(port)",
      "MOWDECK_NOTIFICATIONS_APNS_SANDBOX_URL": "https://localhost:\(port)",
      "MOWDECK_NOTIFICATIONS_APNS_CA_FILE": pki.appendingPathComponent("ca.pem").path,
      "MOWDECK_NOTIFICATIONS_APNS_KEY_PATH": pki.appendingPathComponent("apns-key.p8").path,
      "MOWDECK_NOTIFICATIONS_APNS_KEY_ID": Self.keyID,
      "MOWDECK_NOTIFICATIONS_APNS_TEAM_ID": Self.teamID,
    ]
  }
}

/// The port a process logged in its `{"msg":"listening","port":N}` line.
public func listeningPort(of process: WorkerProcess, timeout: Duration = .seconds(60)) async throws
  -> Int
{
  var port = 0
  try await eventually(timeout: timeout, "\(process.name) to listen") {
    for line in process.log.split(separator: "\n") {
      if let object = JSON.object(from: Array(line.utf8)), object["msg"]?.string == "listening",
        let value = object["port"]?.integer
      {
        port = value
        return true
      }
    }
    return false
  }
  return port
}
