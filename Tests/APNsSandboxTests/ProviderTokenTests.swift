import Events
import Foundation
import Infrastructure
import Testing

@testable import APNsSandbox

@Suite("Provider tokens")
struct ProviderTokenTests {
  let now = Date(timeIntervalSince1970: 1_795_953_600)
  let teamID = "TEAM123456"
  let keyID = "KEY7890ABC"

  private func verifier() async throws -> ProviderTokenVerifier {
    let pki = try await TestPKI.shared()
    return ProviderTokenVerifier(
      publicKey: try ES256PublicKey(pemFile: pki.publicKey), keyID: keyID, teamID: teamID)
  }

  private func token(
    age: Int64 = 0, keyID: String? = nil, teamID: String? = nil, keyFile: String? = nil
  )
    async throws -> String
  {
    let pki = try await TestPKI.shared()
    let signer = ProviderTokenSigner(
      key: try ES256PrivateKey(pemFile: keyFile ?? pki.signingKey), keyID: keyID ?? self.keyID,
      teamID: teamID ?? self.teamID)
    return try signer.token(issuedAt: Int64(now.timeIntervalSince1970) - age)
  }

  /// A token with chosen header and claims JSON, signed with the test key.
  private func token(header: String, claims: String) async throws -> String {
    let pki = try await TestPKI.shared()
    let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    let signature = try #require(
      try ES256PrivateKey(pemFile: pki.signingKey).sign(Array(input.utf8)))
    return input + "." + Base64URL.encode(signature)
  }

  @Test func aGoodTokenPassesAndItsClaimsAreRead() async throws {
    let outcome = try await verifier().check(authorization: "bearer " + token(), now: now)
    #expect(outcome.reason == nil)
    #expect(
      outcome.claims
        == ProviderTokenClaims(
          algorithm: "ES256", keyID: keyID, issuer: teamID,
          issuedAt: Int64(now.timeIntervalSince1970)))
  }

  @Test(
    "age limits: at most one hour old, at most a minute ahead",
    arguments: [
      (0 as Int64, nil as APNsReason?), (3600, nil), (3601, .expiredProviderToken),
      (-60, nil), (-61, .invalidProviderToken),
    ])
  func ageLimits(age: Int64, reason: APNsReason?) async throws {
    let outcome = try await verifier().check(authorization: "bearer " + token(age: age), now: now)
    #expect(outcome.reason == reason)
  }

  @Test func aCachedTokenStillAges() async throws {
    let verifier = try await verifier()
    let authorization = try await "bearer " + token()
    #expect(verifier.check(authorization: authorization, now: now).reason == nil)
    #expect(
      verifier.check(authorization: authorization, now: now.addingTimeInterval(3601)).reason
        == .expiredProviderToken)
  }

  @Test func aTokenSignedByAnotherKeyIsInvalid() async throws {
    let stranger = try await TestPKI.strangerKey()
    let outcome = try await verifier().check(
      authorization: "bearer " + token(keyFile: stranger), now: now)
    #expect(outcome.reason == .invalidProviderToken)
    #expect(outcome.claims?.keyID == keyID)
  }

  @Test func aTamperedTokenIsInvalid() async throws {
    let good = try await token()
    let parts = good.split(separator: ".").map(String.init)
    // Same header and signature, claims of another team.
    let forgedClaims = Base64URL.encode(
      Array(#"{"iat":\#(Int(now.timeIntervalSince1970)),"iss":"\#(teamID)X"}"#.utf8))
    let verifier = try await verifier()
    #expect(
      verifier.check(authorization: "bearer \(parts[0]).\(forgedClaims).\(parts[2])", now: now)
        .reason
        == .invalidProviderToken)
    // A flipped signature bit.
    var signature = try #require(Base64URL.decode(parts[2]))
    signature[10] ^= 0x01
    let flipped = "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
    #expect(
      verifier.check(authorization: "bearer " + flipped, now: now).reason == .invalidProviderToken)
  }

  @Test(
    "headers and claims that APNs refuses",
    arguments: [
      (#"{"alg":"ES256","kid":"OTHERKEY"}"#, #"{"iss":"TEAM123456","iat":1795953600}"#),
      (#"{"alg":"HS256","kid":"KEY7890ABC"}"#, #"{"iss":"TEAM123456","iat":1795953600}"#),
      (#"{"kid":"KEY7890ABC"}"#, #"{"iss":"TEAM123456","iat":1795953600}"#),
      (#"{"alg":"ES256","kid":"KEY7890ABC"}"#, #"{"iss":"OTHERTEAM","iat":1795953600}"#),
      (#"{"alg":"ES256","kid":"KEY7890ABC"}"#, #"{"iat":1795953600}"#),
      (#"{"alg":"ES256","kid":"KEY7890ABC"}"#, #"{"iss":"TEAM123456"}"#),
      (#"{"alg":"ES256","kid":"KEY7890ABC"}"#, #"{"iss":"TEAM123456","iat":"1795953600"}"#),
      (#"{"alg":"ES256","kid":"KEY7890ABC"}"#, #"{"iss":"TEAM123456","iat":1795953600.5}"#),
      (#"{"alg":"ES256","kid":"KEY7890ABC"}"#, #"{"iss":"TEAM123456","iat":true}"#),
    ])
  func refusedHeadersAndClaims(header: String, claims: String) async throws {
    let outcome = try await verifier().check(
      authorization: "bearer " + token(header: header, claims: claims), now: now)
    #expect(outcome.reason == .invalidProviderToken)
  }

  @Test func theSameSignedTokenWithGoodClaimsPasses() async throws {
    // The control for the table above: only the field under test differs.
    let outcome = try await verifier().check(
      authorization: "bearer "
        + token(
          header: #"{"alg":"ES256","kid":"KEY7890ABC"}"#,
          claims: #"{"iss":"TEAM123456","iat":1795953600}"#),
      now: now)
    #expect(outcome.reason == nil)
  }

  @Test(
    "malformed authorization headers",
    arguments: [
      (nil as String?, APNsReason.missingProviderToken), ("bearer ", .missingProviderToken),
      ("basic dXNlcjpwYXNz", .invalidProviderToken), ("bearer abc", .invalidProviderToken),
      ("bearer a.b.c", .invalidProviderToken), ("bearer ...", .invalidProviderToken),
    ])
  func malformed(authorization: String?, reason: APNsReason) async throws {
    #expect(try await verifier().check(authorization: authorization, now: now).reason == reason)
  }

  @Test func derAndRawSignaturesConvertBothWays() async throws {
    let pki = try await TestPKI.shared()
    let key = try ES256PrivateKey(pemFile: pki.signingKey)
    let raw = try #require(key.sign(Array("message".utf8)))
    #expect(raw.count == 64)
    let der = try #require(ES256.derSignature(fromRaw: raw))
    #expect(der.first == 0x30)
    #expect(ES256.rawSignature(fromDER: der) == raw)
    #expect(
      try ES256PublicKey(pemFile: pki.publicKey).verify(Array("message".utf8), signature: raw))
    #expect(
      !(try ES256PublicKey(pemFile: pki.publicKey).verify(Array("massage".utf8), signature: raw)))
    #expect(ES256.derSignature(fromRaw: Array(raw.prefix(63))) == nil)
  }
}
