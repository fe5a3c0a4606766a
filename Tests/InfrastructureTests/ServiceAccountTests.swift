import Foundation
import TestSupport
import Testing

@testable import Infrastructure

/// A service-account file is the operator's: every way it can be wrong is named.
@Suite struct ServiceAccountTests {
  static let tokenURI = "https://oauth2.googleapis.com/token"

  static func json(omitting: Set<String> = [], privateKeyPEM: String? = nil) throws -> [UInt8] {
    FCMSandboxHarness.serviceAccountJSON(
      privateKeyPEM: try privateKeyPEM ?? FCMSandboxHarness.serviceAccountKey().privateKeyPEM,
      tokenURI: tokenURI, omitting: omitting)
  }

  /// The file with one field set to a raw JSON value.
  static func json(setting field: String, to raw: String) throws -> [UInt8] {
    var object = try #require(JSONValue.parse(json()))
    guard case .object(var fields) = object else { return [] }
    fields[field] = JSONValue.parse(Array(raw.utf8))
    object = .object(fields)
    return WireCoding.encode(object)
  }

  @Test func aConsoleFileIsRead() throws {
    let account = try ServiceAccount.parse(Self.json())
    #expect(account.projectID == FCMSandboxHarness.projectID)
    #expect(account.clientEmail == FCMSandboxHarness.clientEmail)
    #expect(account.tokenURI == Self.tokenURI)
    #expect(account.signingKey.bits == 2048)
    // Also as a Decodable, inside a larger message.
    let decoded = try JSONDecoder().decode(ServiceAccount.self, from: Data(Self.json()))
    #expect(decoded.clientEmail == account.clientEmail)
  }

  @Test(arguments: ["type", "project_id", "private_key", "client_email", "token_uri"])
  func aMissingFieldIsNamed(field: String) throws {
    #expect(throws: ServiceAccountError.missingField(field)) {
      try ServiceAccount.parse(Self.json(omitting: [field]))
    }
    #expect(throws: ServiceAccountError.missingField(field)) {
      try ServiceAccount.parse(Self.json(setting: field, to: #""""#))
    }
    #expect(throws: ServiceAccountError.missingField(field)) {
      try ServiceAccount.parse(Self.json(setting: field, to: "12"))
    }
    #expect(ServiceAccountError.missingField(field).description.contains(field))
  }

  @Test func otherMistakesAreNamed() throws {
    #expect(throws: ServiceAccountError.notJSON) { try ServiceAccount.parse(Array("{".utf8)) }
    #expect(throws: ServiceAccountError.notJSON) { try ServiceAccount.parse(Array("[]".utf8)) }
    #expect(throws: ServiceAccountError.wrongType("authorized_user")) {
      try ServiceAccount.parse(Self.json(setting: "type", to: #""authorized_user""#))
    }
    #expect(throws: ServiceAccountError.badTokenURI("http://oauth2.example.com/token")) {
      try ServiceAccount.parse(
        Self.json(setting: "token_uri", to: #""http://oauth2.example.com/token""#))
    }
    #expect(throws: ServiceAccountError.badPrivateKey(.unreadablePEM)) {
      try ServiceAccount.parse(Self.json(privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n"))
    }
    let ecKey = try runShell(
      "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 2>/dev/null")
    #expect(throws: ServiceAccountError.badPrivateKey(.notRSA)) {
      try ServiceAccount.parse(Self.json(privateKeyPEM: ecKey))
    }
    #expect(throws: ServiceAccountError.unreadable(path: "/nonexistent/sa.json")) {
      try ServiceAccount.load(path: "/nonexistent/sa.json")
    }
  }

  @Test func tokenURIsMustBeHTTPSExceptOnLoopback() {
    #expect(ServiceAccount.isAcceptableTokenURI("https://oauth2.googleapis.com/token"))
    #expect(ServiceAccount.isAcceptableTokenURI("http://127.0.0.1:8080/token"))
    #expect(ServiceAccount.isAcceptableTokenURI("http://localhost:8080/token"))
    #expect(!ServiceAccount.isAcceptableTokenURI("http://10.0.0.1/token"))
    #expect(!ServiceAccount.isAcceptableTokenURI("ftp://oauth2.googleapis.com/token"))
    #expect(!ServiceAccount.isAcceptableTokenURI("oauth2.googleapis.com/token"))
  }

  @Test func formBodiesRoundTrip() throws {
    let fields: [(name: String, value: String)] = [
      ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", "a.b-c_d~"),
      ("odd", "x y&z=%é"),
    ]
    let body = FormURLEncoding.encode(fields)
    #expect(
      body.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&"))
    #expect(body.contains("assertion=a.b-c_d~&"))
    let decoded = try #require(FormURLEncoding.decode(Array(body.utf8)))
    #expect(decoded == Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) }))
    #expect(FormURLEncoding.decode(Array("a=b+c&a=d&e".utf8)) == ["a": "b c", "e": ""])
    #expect(FormURLEncoding.decode(Array("a=%4".utf8)) == nil)
    #expect(FormURLEncoding.decode(Array("a=%zz".utf8)) == nil)
    #expect(FormURLEncoding.decode(Array("a=%ff".utf8)) == nil)
  }
}
