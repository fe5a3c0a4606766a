import Foundation
import Infrastructure
import TestSupport

@testable import APNsSandbox

/// The sandbox started as a real process on a free port, with the test PKI and a record
/// file of its own. Used by one test at a time, and stopped by it.
final class SandboxProcess {
  static let teamID = "TEAM123456"
  static let keyID = "KEY7890ABC"
  static let topic = "app.mowdeck.mobile"

  let pki: TestPKI
  let port: Int
  let recordFile: String
  let logFile: String
  /// Holds the record file and the log; removed with this object.
  private let directory: String
  private let process: ChildProcess

  /// The directory of the executables: MOWDECK_BIN_DIR, or the one holding this test
  /// bundle (`swift build --scratch-path X` puts both in X/debug).
  static var binary: URL {
    if let directory = ProcessInfo.processInfo.environment["MOWDECK_BIN_DIR"] {
      return URL(fileURLWithPath: directory).appendingPathComponent("APNsSandbox")
    }
    let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return bundle.deletingLastPathComponent().appendingPathComponent("APNsSandbox")
  }

  /// Starts it with the standard settings plus `arguments`, and waits for its "listening"
  /// line.
  static func start(_ arguments: [String] = []) async throws -> SandboxProcess {
    let pki = try await TestPKI.shared()
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("apns-sandbox-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let recordFile = directory.appendingPathComponent("record.jsonl").path
    let logFile = directory.appendingPathComponent("sandbox.log").path
    _ = FileManager.default.createFile(atPath: logFile, contents: nil)
    let process = try ChildProcess(
      executable: binary.path,
      arguments: [
        "--listen", "127.0.0.1:0", "--cert", pki.serverCertificate, "--key", pki.serverKey,
        "--public-key", pki.publicKey, "--team-id", teamID, "--key-id", keyID,
        "--topic", topic, "--record", recordFile,
      ] + arguments,
      environment: ProcessInfo.processInfo.environment, output: logFile, errors: nil)

    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
      let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
      if let line = text.split(separator: "\n").first(where: { $0.contains("\"listening\"") }),
        let object = JSON.object(from: Array(line.utf8)),
        let port = object["port"]?.integer
      {
        return SandboxProcess(
          pki: pki, port: port, directory: directory.path, process: process)
      }
      guard process.isRunning else {
        try? FileManager.default.removeItem(at: directory)
        throw HarnessFailure("the sandbox exited (\(process.waitUntilExit())): \(text)")
      }
      try await Task.sleep(for: .milliseconds(10))
    }
    process.send(SIGKILL)
    process.waitUntilExit()
    try? FileManager.default.removeItem(at: directory)
    throw HarnessFailure("the sandbox did not start listening within 10 s")
  }

  private init(pki: TestPKI, port: Int, directory: String, process: ChildProcess) {
    self.pki = pki
    self.port = port
    self.directory = directory
    recordFile = directory + "/record.jsonl"
    logFile = directory + "/sandbox.log"
    self.process = process
  }

  deinit {
    process.send(SIGKILL)
    process.waitUntilExit()
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// SIGTERM, then its exit status once it has stopped.
  @discardableResult
  func stop() async throws -> Int32 {
    process.send(SIGTERM)
    let deadline = ContinuousClock.now + .seconds(10)
    while process.isRunning {
      guard ContinuousClock.now < deadline else {
        process.send(SIGKILL)
        throw HarnessFailure("the sandbox did not stop within 10 s of SIGTERM")
      }
      try await Task.sleep(for: .milliseconds(10))
    }
    return process.waitUntilExit()
  }

  var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

  var recordText: String { (try? String(contentsOfFile: recordFile, encoding: .utf8)) ?? "" }

  /// The record file's lines, parsed.
  func records() throws -> [[String: JSONValue]] {
    try recordText.split(separator: "\n").map { line in
      guard let object = JSON.object(from: Array(line.utf8))
      else { throw HarnessFailure("a record line is not a JSON object: \(line)") }
      return object
    }
  }

  var endpoint: SandboxEndpoint { SandboxEndpoint(port: port, pki: pki) }

  func providerToken(
    age: Int64 = 0, keyID: String = keyID, teamID: String = teamID, key: String? = nil
  ) throws -> String {
    try endpoint.providerToken(age: age, keyID: keyID, teamID: teamID, key: key)
  }
}

/// Where a running sandbox answers, and how to make tokens it accepts: what a client task
/// needs, without the process handle (which is not Sendable).
struct SandboxEndpoint: Sendable {
  let port: Int
  let pki: TestPKI

  /// A provider token signed with the test key (or `key`), issued `age` seconds ago.
  func providerToken(
    age: Int64 = 0, keyID: String = SandboxProcess.keyID, teamID: String = SandboxProcess.teamID,
    key: String? = nil
  ) throws -> String {
    let signer = ProviderTokenSigner(
      key: try ES256PrivateKey(pemFile: key ?? pki.signingKey), keyID: keyID, teamID: teamID)
    return try signer.token(issuedAt: Int64(Date().timeIntervalSince1970) - age)
  }
}

/// Runs `body` against a fresh sandbox and stops it afterwards, even when `body` throws.
func withSandbox<T>(
  _ arguments: [String] = [], _ body: (SandboxProcess) async throws -> T
) async throws -> T {
  let sandbox = try await SandboxProcess.start(arguments)
  do {
    let result = try await body(sandbox)
    try await sandbox.stop()
    return result
  } catch {
    _ = try? await sandbox.stop()
    throw error
  }
}
