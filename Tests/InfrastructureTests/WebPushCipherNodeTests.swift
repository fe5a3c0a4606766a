import Foundation
import TestSupport
import Testing

@testable import Infrastructure

/// `WebPushCipher.encrypt` checked by a decryption that shares none of its code: a Node.js
/// script written from RFC 8291 and RFC 8188 with only Node's own `crypto`
/// (Tests/Fixtures/webpush-decrypt.js), as a browser's push handling would decrypt. Without
/// node these tests fail rather than skip (`scripts/setup.sh` installs it; ADR 0037).
@Suite struct WebPushCipherNodeTests {
  /// What the script prints: the header it read and the plaintext, bytes in base64url.
  struct Decrypted: Decodable {
    let salt: String
    let rs: Int
    let keyid: String
    let plaintext: String
  }

  struct NodeRefused: Error, CustomStringConvertible {
    let description: String
  }

  static let script = TestServers.fixture("webpush-decrypt.js")

  /// The body decrypted by the script for the user agent holding `privateKey`.
  static func decryptInNode(_ body: [UInt8], privateKey: [UInt8], authSecret: [UInt8])
    async throws -> Decrypted
  {
    let run = try await NodeJS.run(
      script, [privateKey, authSecret, body].map { Base64URL.encode($0) })
    guard run.status == 0 else {
      throw NodeRefused(description: "exit \(run.status): \(run.errors)")
    }
    return try WireCoding.decode(Decrypted.self, from: Array(run.output.utf8))
  }

  /// A browser's subscription whose private key the script is given.
  struct Browser {
    let privateKey: [UInt8]
    let key: P256KeyPair
    let authSecret: [UInt8]

    init() {
      var generator = SystemRandomNumberGenerator()
      let random = { (count: Int) in
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
      }
      // A random 32 bytes is a valid scalar but for a chance of about 2^-32.
      var scalar = random(32)
      while (try? P256KeyPair(privateKey: scalar)) == nil { scalar = random(32) }
      privateKey = scalar
      key = try! P256KeyPair(privateKey: scalar)
      authSecret = random(16)
    }
  }

  /// The script against the RFC's own example first: it is right on its own, not merely in
  /// agreement with the Swift.
  @Test func theScriptDecryptsTheRFC8291Example() async throws {
    let decrypted = try await Self.decryptInNode(
      RFC8291Example.bytes(RFC8291Example.body),
      privateKey: RFC8291Example.userAgentPrivateKey, authSecret: RFC8291Example.authSecret)
    #expect(Base64URL.decode(decrypted.plaintext) == RFC8291Example.plaintext)
    #expect(Base64URL.decode(decrypted.salt) == RFC8291Example.salt)
    #expect(Base64URL.decode(decrypted.keyid) == RFC8291Example.senderPublicKey)
    #expect(decrypted.rs == 4096)
  }

  @Test(arguments: [0, 1, 41, 1000, 4096 - 17])
  func whatTheCipherEncryptsNodeDecrypts(length: Int) async throws {
    let browser = Browser()
    let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
    let body = try WebPushCipher.encrypt(
      plaintext: plaintext, userAgentPublicKey: browser.key.publicKeyUncompressed,
      authSecret: browser.authSecret)
    let decrypted = try await Self.decryptInNode(
      body, privateKey: browser.privateKey, authSecret: browser.authSecret)
    #expect(Base64URL.decode(decrypted.plaintext) == plaintext)
    // The header as the script read it: the body's fresh salt, rs 4096, and as keyid a
    // P-256 point that is the sender's (decryption with it authenticated), not the browser's.
    #expect(Base64URL.decode(decrypted.salt) == Array(body[0..<16]))
    #expect(decrypted.rs == 4096)
    let keyid = try #require(Base64URL.decode(decrypted.keyid))
    #expect(keyid == Array(body[21..<86]))
    #expect(keyid.count == 65 && keyid.first == 0x04)
    #expect(keyid != browser.key.publicKeyUncompressed)
  }

  /// The message the WebPushWorker sends, with its small record size too.
  @Test func aMessageInASmallRecordDecryptsInNode() async throws {
    let browser = Browser()
    let message = Array(#"{"title":"Robbie was lifted","tag":"9e27"}"#.utf8)
    let body = try WebPushCipher.encrypt(
      plaintext: message, userAgentPublicKey: browser.key.publicKeyUncompressed,
      authSecret: browser.authSecret, recordSize: message.count + 17)
    let decrypted = try await Self.decryptInNode(
      body, privateKey: browser.privateKey, authSecret: browser.authSecret)
    #expect(Base64URL.decode(decrypted.plaintext) == message)
    #expect(decrypted.rs == message.count + 17)
  }

  /// The script can say no: a changed byte, another browser's key or auth secret.
  @Test func theScriptRefusesWhatDoesNotAuthenticate() async throws {
    let browser = Browser()
    let body = try WebPushCipher.encrypt(
      plaintext: RFC8291Example.plaintext, userAgentPublicKey: browser.key.publicKeyUncompressed,
      authSecret: browser.authSecret)
    var tampered = body
    tampered[100] ^= 0x01
    let other = Browser()
    for (body, privateKey, authSecret) in [
      (tampered, browser.privateKey, browser.authSecret),
      (body, other.privateKey, browser.authSecret),
      (body, browser.privateKey, other.authSecret),
    ] {
      await #expect(throws: NodeRefused.self) {
        try await Self.decryptInNode(body, privateKey: privateKey, authSecret: authSecret)
      }
    }
  }
}
