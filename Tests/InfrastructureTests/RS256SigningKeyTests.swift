import Foundation
import TestSupport
import Testing

@testable import Infrastructure

/// RS256 on OpenSSL, checked against the `openssl` command line: PKCS#1 v1.5 signatures are
/// deterministic, so the command line's signature of a message is the known answer.
@Suite struct RS256SigningKeyTests {
  @Test func aServiceAccountKeySignsWhatItsPublicKeyVerifies() throws {
    let pair = try FCMSandboxHarness.serviceAccountKey()
    let key = try RS256SigningKey(pem: pair.privateKeyPEM)
    #expect(key.bits == 2048)
    let verifier = try RS256VerifyingKey(pem: pair.publicKeyPEM)
    let message = Array("header.claims".utf8)
    let signature = try key.sign(message)
    #expect(signature.count == 256)
    #expect(verifier.isValidSignature(signature, of: message))
    #expect(!verifier.isValidSignature(signature, of: Array("header.claimz".utf8)))
    var altered = signature
    altered[100] ^= 0x01
    #expect(!verifier.isValidSignature(altered, of: message))
    #expect(!verifier.isValidSignature([], of: message))
    #expect(try key.sign(message) == signature, "PKCS#1 v1.5 signatures are deterministic")
  }

  /// The known answer: `openssl dgst -sha256 -sign` of the same message with the same key,
  /// byte for byte; and `openssl dgst -verify` accepts ours.
  @Test func theSignatureIsOpenSSLCommandLinesByteForByte() throws {
    let pair = try FCMSandboxHarness.serviceAccountKey()
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let keyFile = directory.appendingPathComponent("key.pem")
    let publicFile = directory.appendingPathComponent("pub.pem")
    let messageFile = directory.appendingPathComponent("message")
    let signatureFile = directory.appendingPathComponent("signature")
    try pair.privateKeyPEM.write(to: keyFile, atomically: true, encoding: .utf8)
    try pair.publicKeyPEM.write(to: publicFile, atomically: true, encoding: .utf8)
    let message = Array(#"eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJhQGIifQ"#.utf8)
    try Data(message).write(to: messageFile)
    let expected = try runShell(
      "openssl dgst -sha256 -sign '\(keyFile.path)' '\(messageFile.path)' | base64 -w0")
    let ours = try RS256SigningKey(pem: pair.privateKeyPEM).sign(message)
    #expect(Data(ours).base64EncodedString() == expected)
    try Data(ours).write(to: signatureFile)
    let verdict = try runShell(
      "openssl dgst -sha256 -verify '\(publicFile.path)' -signature '\(signatureFile.path)' "
        + "'\(messageFile.path)'")
    #expect(verdict.contains("Verified OK"))
  }

  @Test func aPKCS1KeyAndACertificateAreReadToo() throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let pkcs1 = directory.appendingPathComponent("rsa.pem")
    try runShell("openssl genrsa -traditional -out '\(pkcs1.path)' 2048 2>/dev/null")
    let pem = try String(contentsOf: pkcs1, encoding: .utf8)
    #expect(pem.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
    let key = try RS256SigningKey(pem: pem)
    let certificate = try runShell(
      "openssl req -x509 -new -key '\(pkcs1.path)' -subj /CN=test -days 1 2>/dev/null")
    let verifier = try RS256VerifyingKey(pem: certificate)
    let message = Array("signed".utf8)
    #expect(verifier.isValidSignature(try key.sign(message), of: message))
    // The public key the signing key writes is the certificate's.
    let exported = try RS256VerifyingKey(pem: try #require(key.publicKeyPEM()))
    #expect(exported.isValidSignature(try key.sign(message), of: message))
  }

  @Test func keysThatCannotSignRS256AreRefusedByName() throws {
    #expect(throws: RS256Error.unreadablePEM) { try RS256SigningKey(pem: "not a key") }
    #expect(throws: RS256Error.notRSA) {
      try RS256SigningKey(
        pem: Self.pem("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256"))
    }
    #expect(throws: RS256Error.notRSA) {
      try RS256SigningKey(pem: Self.pem("openssl genpkey -algorithm ed25519"))
    }
    #expect(throws: RS256Error.keyTooSmall(bits: 1024)) {
      try RS256SigningKey(
        pem: Self.pem("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024"))
    }
    // An encrypted key is refused, never prompted for.
    #expect(throws: RS256Error.unreadablePEM) {
      try RS256SigningKey(
        pem: Self.pem(
          "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -aes256 -pass pass:secret"))
    }
    #expect(throws: RS256Error.notRSA) {
      try RS256VerifyingKey(
        pem: Self.pem(
          "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 | openssl pkey -pubout"))
    }
    // A private key is not what a verifier is given.
    let privateKey = try FCMSandboxHarness.serviceAccountKey().privateKeyPEM
    #expect(throws: RS256Error.unreadablePEM) { try RS256VerifyingKey(pem: privateKey) }
  }

  @Test func anAssertionIsACompactJWSWithTheRS256Header() throws {
    let pair = try FCMSandboxHarness.serviceAccountKey()
    let account = ServiceAccount(
      projectID: "p", clientEmail: "a@p.iam.gserviceaccount.com",
      tokenURI: "https://oauth2.googleapis.com/token",
      signingKey: try RS256SigningKey(pem: pair.privateKeyPEM))
    let now = Date(timeIntervalSince1970: 1_777_000_000)
    let claims = JWTBearerAssertion.claims(for: account, scope: "s1 s2", now: now)
    #expect(
      claims
        == OAuthAssertionClaims(
          iss: "a@p.iam.gserviceaccount.com", scope: "s1 s2",
          aud: "https://oauth2.googleapis.com/token", iat: 1_777_000_000, exp: 1_777_003_600))
    let token = try JWTBearerAssertion.sign(claims, with: account.signingKey)
    let jws = try #require(CompactJWS(token))
    #expect(String(decoding: jws.header, as: UTF8.self) == #"{"alg":"RS256","typ":"JWT"}"#)
    #expect(try WireCoding.decode(OAuthAssertionClaims.self, from: jws.claims) == claims)
    #expect(
      try RS256VerifyingKey(pem: pair.publicKeyPEM).isValidSignature(
        jws.signature, of: jws.signingInput))
  }

  @Test func compactJWSRefusesWhatIsNotThreeBase64URLParts() {
    #expect(CompactJWS("a.b") == nil)
    #expect(CompactJWS("a.b.c.d") == nil)
    #expect(CompactJWS("eyJ9.e+J9.AA") == nil)
    #expect(CompactJWS("e30.e30.") != nil)
  }

  private static func pem(_ command: String) throws -> String {
    try runShell(command + " 2>/dev/null")
  }

  private static func scratch() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("rs256-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }
}
