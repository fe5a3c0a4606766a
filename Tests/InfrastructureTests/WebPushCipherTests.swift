import Testing

@testable import Infrastructure

/// RFC 8291 section 5 and appendix A: the one published Web Push message, with every key,
/// the salt and the expected body.
enum RFC8291Example {
  static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
  static let authSecret = bytes("BTBZMqHH6r4Tts7J_aSIgg")
  static let userAgentPrivateKey = bytes("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")
  static let userAgentPublicKey = bytes(
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
  static let senderPrivateKey = bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
  static let senderPublicKey = bytes(
    "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
  static let salt = bytes("DGv6ra1nlYgDCS1FRnbzlw")
  static let ecdhSecret = bytes("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs")
  static let contentKey = bytes("oIhVW04MRdy2XN9CiKLxTg")
  static let nonce = bytes("4h_95klXJ5E_qnoN")
  static let body =
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

  static func bytes(_ text: String) -> [UInt8] { Base64URL.decode(text)! }
}

@Suite struct WebPushCipherTests {
  @Test func reproducesTheRFC8291ExampleByteForByte() throws {
    let sender = try P256KeyPair(privateKey: RFC8291Example.senderPrivateKey)
    #expect(sender.publicKeyUncompressed == RFC8291Example.senderPublicKey)
    let body = try WebPushCipher.encrypt(
      plaintext: RFC8291Example.plaintext, userAgentPublicKey: RFC8291Example.userAgentPublicKey,
      authSecret: RFC8291Example.authSecret, salt: RFC8291Example.salt, senderKey: sender)
    #expect(Base64URL.encode(body) == RFC8291Example.body)
  }

  @Test func derivesTheRFC8291IntermediateValues() throws {
    let sender = try P256KeyPair(privateKey: RFC8291Example.senderPrivateKey)
    let userAgent = try P256KeyPair(privateKey: RFC8291Example.userAgentPrivateKey)
    #expect(userAgent.publicKeyUncompressed == RFC8291Example.userAgentPublicKey)
    let secret = try sender.sharedSecret(withPublicKey: RFC8291Example.userAgentPublicKey)
    #expect(secret == RFC8291Example.ecdhSecret)
    #expect(try userAgent.sharedSecret(withPublicKey: sender.publicKeyUncompressed) == secret)
    let keys = try WebPushCipher.contentKeys(
      ecdhSecret: secret, authSecret: RFC8291Example.authSecret,
      userAgentPublicKey: RFC8291Example.userAgentPublicKey,
      senderPublicKey: RFC8291Example.senderPublicKey, salt: RFC8291Example.salt)
    #expect(keys.contentKey == RFC8291Example.contentKey)
    #expect(keys.nonce == RFC8291Example.nonce)
  }

  @Test func decryptsTheRFC8291Example() throws {
    let userAgent = try P256KeyPair(privateKey: RFC8291Example.userAgentPrivateKey)
    let plaintext = try WebPushCipher.decrypt(
      body: RFC8291Example.bytes(RFC8291Example.body), userAgentKey: userAgent,
      authSecret: RFC8291Example.authSecret)
    #expect(plaintext == RFC8291Example.plaintext)
  }

  @Test(arguments: [0, 1, 41, 1000, 4096 - 17])
  func roundTripsWithFreshKeys(length: Int) throws {
    let subscription = try Subscription()
    let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    let body = try subscription.encrypt(plaintext)
    #expect(body.count == 86 + length + 1 + 16)
    #expect(Array(body[16..<21]) == [0, 0, 0x10, 0, 65])
    #expect(try subscription.decrypt(body) == plaintext)
  }

  @Test func aMessageLargerThanOneRecordIsRefused() throws {
    let subscription = try Subscription()
    #expect(throws: WebPushCipherError.plaintextTooLarge(length: 4080, limit: 4079)) {
      try subscription.encrypt([UInt8](repeating: 1, count: 4080))
    }
    let small = try WebPushCipher.encrypt(
      plaintext: [1, 2, 3], userAgentPublicKey: subscription.key.publicKeyUncompressed,
      authSecret: subscription.authSecret, recordSize: 20)
    #expect(try subscription.decrypt(small) == [1, 2, 3])
  }

  @Test func twoEncryptionsOfOneMessageDiffer() throws {
    let subscription = try Subscription()
    let first = try subscription.encrypt(RFC8291Example.plaintext)
    let second = try subscription.encrypt(RFC8291Example.plaintext)
    #expect(first[0..<16] != second[0..<16], "a fresh salt")
    #expect(first[21..<86] != second[21..<86], "a fresh sender key")
    #expect(first[86...] != second[86...])
    #expect(try subscription.decrypt(first) == subscription.decrypt(second))
  }

  @Test(arguments: [0, 15, 30, 86, 100, 86 + 41 + 16])
  func aFlippedByteFailsToDecrypt(index: Int) throws {
    let subscription = try Subscription()
    var body = try subscription.encrypt(RFC8291Example.plaintext)
    body[index] ^= 0x01
    #expect(throws: WebPushCipherError.self) { try subscription.decrypt(body) }
    if index < 16 || index >= 86 {
      // Salt and record bytes reach only the AEAD; key id bytes may also leave the curve.
      #expect(throws: WebPushCipherError.authenticationFailed) { try subscription.decrypt(body) }
    }
  }

  @Test func aWrongAuthSecretFailsAuthentication() throws {
    let subscription = try Subscription()
    let body = try subscription.encrypt(RFC8291Example.plaintext)
    var wrong = subscription.authSecret
    wrong[0] ^= 0x80
    #expect(throws: WebPushCipherError.authenticationFailed) {
      try WebPushCipher.decrypt(body: body, userAgentKey: subscription.key, authSecret: wrong)
    }
    #expect(throws: WebPushCipherError.badAuthSecret(length: 15)) {
      try WebPushCipher.decrypt(
        body: body, userAgentKey: subscription.key, authSecret: Array(wrong.prefix(15)))
    }
  }

  @Test func aWrongUserAgentKeyFailsAuthentication() throws {
    let subscription = try Subscription()
    let body = try subscription.encrypt(RFC8291Example.plaintext)
    #expect(throws: WebPushCipherError.authenticationFailed) {
      try WebPushCipher.decrypt(
        body: body, userAgentKey: P256KeyPair(), authSecret: subscription.authSecret)
    }
  }

  @Test func aTruncatedBodyIsNamed() throws {
    let subscription = try Subscription()
    let body = try subscription.encrypt(RFC8291Example.plaintext)
    #expect(throws: WebPushCipherError.bodyTooShort(length: 20)) {
      try subscription.decrypt(Array(body.prefix(20)))
    }
    #expect(throws: WebPushCipherError.bodyTooShort(length: 100)) {
      try subscription.decrypt(Array(body.prefix(100)))
    }
    #expect(throws: WebPushCipherError.authenticationFailed) {
      try subscription.decrypt(Array(body.dropLast()))
    }
  }

  @Test func aMalformedHeaderIsNamed() throws {
    let subscription = try Subscription()
    var body = try subscription.encrypt(RFC8291Example.plaintext)
    body[20] = 64
    #expect(
      throws: WebPushCipherError.badHeader("key id of 64 bytes is not a 65-byte P-256 public key")
    ) {
      try subscription.decrypt(body)
    }
    body[20] = 65
    body[16..<20] = [0, 0, 0, 17]
    #expect(throws: WebPushCipherError.badHeader("record size 17 is below 18")) {
      try subscription.decrypt(body)
    }
    body[16..<20] = [0, 0, 0, 18]
    #expect(throws: WebPushCipherError.multipleRecords) { try subscription.decrypt(body) }
  }

  @Test func aRecordWithoutTheLastRecordDelimiterIsBadPadding() throws {
    let subscription = try Subscription()
    let sender = try P256KeyPair()
    let salt = [UInt8](repeating: 7, count: 16)
    let keys = try WebPushCipher.contentKeys(
      ecdhSecret: sender.sharedSecret(withPublicKey: subscription.key.publicKeyUncompressed),
      authSecret: subscription.authSecret,
      userAgentPublicKey: subscription.key.publicKeyUncompressed,
      senderPublicKey: sender.publicKeyUncompressed, salt: salt)
    let header = salt + [0, 0, 0x10, 0, 65] + sender.publicKeyUncompressed
    for padded: [UInt8] in [[0x68, 0x69], [0x68, 0x69, 0x01], [0x68, 0x69, 0x02, 0x00, 0x00]] {
      let record = try #require(
        AES128GCM.seal(padded, key: keys.contentKey, nonce: keys.nonce))
      if padded.last == 0x02 || padded.last == 0x00 {
        #expect(try subscription.decrypt(header + record) == [0x68, 0x69])
      } else {
        #expect(throws: WebPushCipherError.badPadding) { try subscription.decrypt(header + record) }
      }
    }
  }

  @Test func aUserAgentKeyOffTheCurveIsRefused() throws {
    var offCurve = RFC8291Example.userAgentPublicKey
    offCurve[64] ^= 0x01
    #expect(throws: WebPushCipherError.badKey(.publicKeyNotOnCurve)) {
      try WebPushCipher.encrypt(
        plaintext: [1], userAgentPublicKey: offCurve, authSecret: RFC8291Example.authSecret)
    }
    #expect(throws: WebPushCipherError.badKey(.publicKeyNotUncompressedPoint(length: 33))) {
      try WebPushCipher.encrypt(
        plaintext: [1], userAgentPublicKey: Array(offCurve.prefix(33)),
        authSecret: RFC8291Example.authSecret)
    }
    var notUncompressed = RFC8291Example.userAgentPublicKey
    notUncompressed[0] = 0x02
    #expect(throws: WebPushCipherError.badKey(.publicKeyNotUncompressedPoint(length: 65))) {
      try WebPushCipher.encrypt(
        plaintext: [1], userAgentPublicKey: notUncompressed, authSecret: RFC8291Example.authSecret)
    }
  }

  @Test func privateScalarsOutsideTheGroupAreRefused() {
    // n, the order of P-256's base point.
    let order = Hex.decodeBytea(
      "\\xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")!
    for scalar in [[UInt8](repeating: 0, count: 32), order, [UInt8](repeating: 0xFF, count: 32)] {
      #expect(throws: P256Error.invalidPrivateKey) { try P256KeyPair(privateKey: scalar) }
    }
    #expect(throws: P256Error.invalidPrivateKey) { try P256KeyPair(privateKey: [1]) }
  }
}

/// A browser's subscription: its `p256dh` key pair and auth secret.
private struct Subscription {
  let key: P256KeyPair
  let authSecret: [UInt8]

  init() throws {
    key = try P256KeyPair()
    authSecret = (0..<16).map { _ in UInt8.random(in: 0...255) }
  }

  func encrypt(_ plaintext: [UInt8]) throws -> [UInt8] {
    try WebPushCipher.encrypt(
      plaintext: plaintext, userAgentPublicKey: key.publicKeyUncompressed, authSecret: authSecret)
  }

  func decrypt(_ body: [UInt8]) throws -> [UInt8] {
    try WebPushCipher.decrypt(body: body, userAgentKey: key, authSecret: authSecret)
  }
}
