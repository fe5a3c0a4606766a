import Foundation
import Testing

@testable import APNsSandbox

@Suite("Command line")
struct CommandLineTests {
  private func run(_ arguments: [String]) async throws -> (
    status: Int32, output: String, error: String
  ) {
    try await runProcess(SandboxProcess.binary.path, arguments)
  }

  @Test func helpDescribesBehavioursAndTheRecordFile() async throws {
    let result = try await run(["--help"])
    #expect(result.status == 0)
    for text in [
      "--behaviour TOKEN=SPEC", "--behaviour-file", "500x2", "goaway:instead", "drop", "apns_id",
      "outcome",
    ] {
      #expect(result.output.contains(text), "\(text)")
    }
  }

  @Test(
    "misuse exits 2 with one line naming the problem",
    arguments: [
      ([] as [String], "--cert is required"),
      (["--listen", "nowhere"], "--listen takes HOST:PORT"),
      (["--behaviour", "abc=500"], "64 hex digits"),
      (["--behaviour", "\(String(repeating: "a", count: 64))=teapot"], "bad behaviour \"teapot\""),
      (["--frobnicate"], "unknown option --frobnicate"),
    ])
  func misuse(arguments: [String], message: String) async throws {
    let result = try await run(arguments)
    #expect(result.status == 2)
    #expect(result.error.contains(message))
    #expect(result.error.split(separator: "\n").count == 1)
  }

  @Test func anUnusablePublicKeyStopsItAtStartNamingTheFile() async throws {
    let pki = try await TestPKI.shared()
    let result = try await run([
      "--listen", "127.0.0.1:0", "--cert", pki.serverCertificate, "--key", pki.serverKey,
      "--public-key", pki.caCertificate, "--team-id", "T", "--key-id", "K",
    ])
    #expect(result.status == 1)
    #expect(result.error.contains("not a P-256 public key in PEM: \(pki.caCertificate)"))
  }

  @Test func makeJWTPrintsATokenTheSandboxAccepts() async throws {
    let pki = try await TestPKI.shared()
    let result = try await run([
      "make-jwt", "--key", pki.signingKey, "--team-id", SandboxProcess.teamID, "--key-id",
      SandboxProcess.keyID,
    ])
    #expect(result.status == 0)
    let token = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    let verifier = ProviderTokenVerifier(
      publicKey: try ES256PublicKey(pemFile: pki.publicKey), keyID: SandboxProcess.keyID,
      teamID: SandboxProcess.teamID)
    #expect(verifier.check(authorization: "bearer " + token, now: Date()).reason == nil)
  }
}
