import Foundation
import TestSupport

/// The test certificate authority, the sandbox's certificate and an APNs-style signing key,
/// made once per test run by `scripts/make-test-pki.sh` (idempotent, safe to run at once).
struct TestPKI: Sendable {
  let directory: String
  var caCertificate: String { directory + "/ca.pem" }
  var serverCertificate: String { directory + "/server.pem" }
  var serverKey: String { directory + "/server.key" }
  var signingKey: String { directory + "/apns-key.p8" }
  var publicKey: String { directory + "/apns-key.pub.pem" }

  private static let making = Task<TestPKI, any Error> {
    // One directory for every run: the script makes the files once and leaves them.
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("mowdeck-apns-sandbox-test-pki").path
    let script = repositoryRoot.appendingPathComponent("scripts/make-test-pki.sh").path
    let result = try await runProcess("/bin/sh", [script, directory])
    guard result.status == 0 else {
      throw HarnessFailure("make-test-pki.sh failed (\(result.status)): \(result.error)")
    }
    return TestPKI(directory: directory)
  }

  static func shared() async throws -> TestPKI { try await making.value }

  /// A second P-256 key that the sandbox does not trust, for forged tokens.
  private static let makingStranger = Task<String, any Error> {
    try await shared().madeOnce("stranger-key.p8") { path in
      ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", path]
    }
  }

  static func strangerKey() async throws -> String { try await makingStranger.value }

  /// A certificate authority that did not sign the sandbox's certificate.
  private static let makingStrangerCA = Task<String, any Error> {
    try await shared().madeOnce("stranger-ca.pem") { path in
      [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", "/dev/null", "-subj", "/CN=Stranger CA", "-days", "3650", "-out", path,
      ]
    }
  }

  static func strangerCA() async throws -> String { try await makingStrangerCA.value }

  /// The file `name` in the PKI directory, made by `openssl <arguments(path)>` unless it is
  /// there already; made under a private name and renamed, so that test runs at once never
  /// see half a file.
  private func madeOnce(_ name: String, _ arguments: (String) -> [String]) async throws -> String {
    let path = directory + "/" + name
    if FileManager.default.fileExists(atPath: path) { return path }
    let scratch = path + ".\(getpid()).tmp"
    let result = try await runProcess("/usr/bin/env", ["openssl"] + arguments(scratch))
    guard result.status == 0, rename(scratch, path) == 0 else {
      throw HarnessFailure("openssl could not make \(name): \(result.error)")
    }
    return path
  }
}

/// Tests/APNsSandboxTests/TestPKI.swift -> the repository.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

struct HarnessFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Runs a command to its end without blocking a thread; output goes through files, so a
/// chatty command cannot fill a pipe and hang.
func runProcess(_ executable: String, _ arguments: [String]) async throws
  -> (status: Int32, output: String, error: String)
{
  let directory = FileManager.default.temporaryDirectory
  let outputFile = directory.appendingPathComponent("sandbox-test-\(UUID().uuidString).out")
  let errorFile = directory.appendingPathComponent("sandbox-test-\(UUID().uuidString).err")
  _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
  _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
  defer {
    try? FileManager.default.removeItem(at: outputFile)
    try? FileManager.default.removeItem(at: errorFile)
  }
  let process = try ChildProcess(
    executable: executable, arguments: arguments,
    environment: ProcessInfo.processInfo.environment, output: outputFile.path,
    errors: errorFile.path)
  let status = await process.exitStatus()
  let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
  let error = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
  return (status, output, error)
}
