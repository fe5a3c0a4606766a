import Events
import Foundation
import Infrastructure
import Testing

@testable import APNsWorker

@Suite struct ProviderTokenTests {
  @Test func theJWTCarriesKidIssIatAndAValidES256Signature() throws {
    let keys = try APNsTestKeys()
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let token = try ProviderToken(
      keyPath: keys.privateKey, keyID: "KEY123", teamID: "TEAM42", clock: clock)
    let jwt = try token.jwt()
    let parts = jwt.split(separator: ".").map(String.init)
    try #require(parts.count == 3)
    let headerBytes = try #require(Base64URL.decode(parts[0]))
    let claimBytes = try #require(Base64URL.decode(parts[1]))
    let header = try #require(JSON.object(from: headerBytes))
    let claims = try #require(JSON.object(from: claimBytes))
    #expect(header["alg"]?.string == "ES256")
    #expect(header["kid"]?.string == "KEY123")
    #expect(claims["iss"]?.string == "TEAM42")
    #expect(claims["iat"]?.integer == 1_800_000_000)
    let signature = try #require(Base64URL.decode(parts[2]))
    #expect(signature.count == 64)
    #expect(
      try keys.verify(message: Array((parts[0] + "." + parts[1]).utf8), rawSignature: signature))
    // A tampered message does not verify: the check can fail.
    #expect(
      !(try keys.verify(
        message: Array((parts[0] + "." + parts[1] + "x").utf8), rawSignature: signature)))
  }

  @Test func oneTokenServesManyPushesAndANewOneComesAfterTheRefreshInterval() throws {
    let keys = try APNsTestKeys()
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let token = try ProviderToken(keyPath: keys.privateKey, keyID: "K", teamID: "T", clock: clock)
    let first = try token.jwt()
    clock.advance(by: 29 * 60)
    #expect(try token.jwt() == first)
    clock.advance(by: 61)
    let second = try token.jwt()
    #expect(second != first)
    clock.advance(by: 60)
    #expect(try token.jwt() == second)
  }

  @Test func anInvalidatedTokenIsReplaced() throws {
    let keys = try APNsTestKeys()
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let token = try ProviderToken(keyPath: keys.privateKey, keyID: "K", teamID: "T", clock: clock)
    let first = try token.jwt()
    clock.advance(by: 1)
    token.invalidate()
    #expect(try token.jwt() != first)
  }

  @Test func aMissingOrMalformedKeyIsRefusedNamingTheVariable() throws {
    let clock = ManualClock(Date())
    #expect(throws: ProviderToken.Failure.self) {
      try ProviderToken(keyPath: "/nonexistent/key.p8", keyID: "K", teamID: "T", clock: clock)
    }
    let garbage = FileManager.default.temporaryDirectory.appendingPathComponent(
      "garbage-\(UUID()).p8")
    try Data("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n".utf8).write(
      to: garbage)
    do {
      _ = try ProviderToken(keyPath: garbage.path, keyID: "K", teamID: "T", clock: clock)
      Issue.record("a malformed key must be refused")
    } catch let failure as ProviderToken.Failure {
      #expect(failure.description.contains("MOWDECK_NOTIFICATIONS_APNS_KEY_PATH"))
    }
  }
}
