import COpenSSL

/// Web Push message encryption (RFC 8291): the `aes128gcm` content coding of RFC 8188 with
/// a single record, keyed by ECDH between a fresh sender key and the subscription's
/// `p256dh` key, mixed with the subscription's auth secret. The body is
/// salt (16) ‖ rs (4, big-endian) ‖ idlen (1) = 65 ‖ sender public key (65) ‖ record.
public enum WebPushCipher {
  public static let defaultRecordSize = 4096
  static let saltLength = 16
  static let authSecretLength = 16
  /// salt ‖ rs ‖ idlen, before the key id.
  static let fixedHeaderLength = 21
  static let headerLength = fixedHeaderLength + P256.publicKeyLength
  /// RFC 8188 section 2: the smallest record holds one byte of delimiter and the tag.
  static let minimumRecordSize = 18
  private static let lastRecordDelimiter: UInt8 = 0x02

  /// Encrypts `plaintext` for the subscription with a fresh random salt and a fresh sender
  /// key pair, as RFC 8291 requires for every message (reusing either would reuse the
  /// content key and nonce).
  public static func encrypt(
    plaintext: [UInt8], userAgentPublicKey: [UInt8], authSecret: [UInt8],
    recordSize: Int = defaultRecordSize
  ) throws(WebPushCipherError) -> [UInt8] {
    var salt = [UInt8](repeating: 0, count: saltLength)
    guard RAND_bytes(&salt, Int32(saltLength)) == 1 else {
      throw .cryptoFailure("RAND_bytes for the salt")
    }
    let senderKey: P256KeyPair
    do {
      senderKey = try P256KeyPair()
    } catch {
      throw .badKey(error)
    }
    return try encrypt(
      plaintext: plaintext, userAgentPublicKey: userAgentPublicKey, authSecret: authSecret,
      salt: salt, senderKey: senderKey, recordSize: recordSize)
  }

  /// The deterministic core, with the salt and sender key given: how tests reproduce the
  /// RFC 8291 section 5 example byte for byte. Never call it twice with one salt and key.
  static func encrypt(
    plaintext: [UInt8], userAgentPublicKey: [UInt8], authSecret: [UInt8], salt: [UInt8],
    senderKey: P256KeyPair, recordSize: Int = defaultRecordSize
  ) throws(WebPushCipherError) -> [UInt8] {
    guard salt.count == saltLength else { throw .cryptoFailure("the salt must be 16 bytes") }
    guard recordSize >= minimumRecordSize, recordSize <= Int(UInt32.max) else {
      throw .badHeader("record size \(recordSize) is not between 18 and 2^32 - 1")
    }
    // One record: plaintext, the delimiter and the tag must fit in rs.
    let limit = recordSize - 1 - AES128GCM.tagLength
    guard plaintext.count <= limit else {
      throw .plaintextTooLarge(length: plaintext.count, limit: limit)
    }
    let keys = try contentKeys(
      ecdhSecret: sharedSecret(senderKey, userAgentPublicKey), authSecret: authSecret,
      userAgentPublicKey: userAgentPublicKey, senderPublicKey: senderKey.publicKeyUncompressed,
      salt: salt)
    guard
      let record = AES128GCM.seal(
        plaintext + [lastRecordDelimiter], key: keys.contentKey, nonce: keys.nonce)
    else { throw .cryptoFailure("AES-128-GCM encryption") }
    let rs = UInt32(recordSize)
    var body = salt
    body += [UInt8(rs >> 24), UInt8(rs >> 16 & 0xFF), UInt8(rs >> 8 & 0xFF), UInt8(rs & 0xFF)]
    body.append(UInt8(P256.publicKeyLength))
    body += senderKey.publicKeyUncompressed
    body += record
    return body
  }

  /// Decrypts a body for the user agent holding `userAgentKey` (the private half of
  /// `p256dh`): what a Web Push service double or a test does in the browser's place.
  public static func decrypt(
    body: [UInt8], userAgentKey: P256KeyPair, authSecret: [UInt8]
  ) throws(WebPushCipherError) -> [UInt8] {
    guard body.count >= fixedHeaderLength else { throw .bodyTooShort(length: body.count) }
    let salt = Array(body[0..<saltLength])
    let rs = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
    let idLength = Int(body[20])
    guard rs >= minimumRecordSize else { throw .badHeader("record size \(rs) is below 18") }
    guard idLength == P256.publicKeyLength else {
      throw .badHeader("key id of \(idLength) bytes is not a 65-byte P-256 public key")
    }
    guard body.count >= headerLength + AES128GCM.tagLength + 1 else {
      throw .bodyTooShort(length: body.count)
    }
    let senderPublicKey = Array(body[fixedHeaderLength..<headerLength])
    let record = body[headerLength...]
    guard record.count <= rs else { throw .multipleRecords }
    let keys = try contentKeys(
      ecdhSecret: sharedSecret(userAgentKey, senderPublicKey), authSecret: authSecret,
      userAgentPublicKey: userAgentKey.publicKeyUncompressed, senderPublicKey: senderPublicKey,
      salt: salt)
    guard let padded = AES128GCM.open(record, key: keys.contentKey, nonce: keys.nonce) else {
      throw .authenticationFailed
    }
    // Padding is zeros after the delimiter; the one record is the last, so 0x02.
    guard let end = padded.lastIndex(where: { $0 != 0 }), padded[end] == lastRecordDelimiter
    else { throw .badPadding }
    return Array(padded[..<end])
  }

  private static func sharedSecret(
    _ own: P256KeyPair, _ peerPublicKey: [UInt8]
  ) throws(WebPushCipherError) -> [UInt8] {
    do {
      return try own.sharedSecret(withPublicKey: peerPublicKey)
    } catch {
      throw .badKey(error)
    }
  }

  /// RFC 8291 section 3.4 and RFC 8188 section 2.2. Each HMAC chain of the RFC is one
  /// HKDF (RFC 5869) whose output fits a single block:
  /// IKM = HKDF(salt: auth_secret, ikm: ecdh_secret, info: key_info, 32),
  /// CEK = HKDF(salt, IKM, "Content-Encoding: aes128gcm" ‖ 0x00, 16),
  /// NONCE = HKDF(salt, IKM, "Content-Encoding: nonce" ‖ 0x00, 12); the one record's
  /// sequence number is 0, so its nonce is NONCE itself.
  static func contentKeys(
    ecdhSecret: [UInt8], authSecret: [UInt8], userAgentPublicKey: [UInt8],
    senderPublicKey: [UInt8], salt: [UInt8]
  ) throws(WebPushCipherError) -> (contentKey: [UInt8], nonce: [UInt8]) {
    guard authSecret.count == authSecretLength else {
      throw .badAuthSecret(length: authSecret.count)
    }
    let keyInfo = Array("WebPush: info".utf8) + [0] + userAgentPublicKey + senderPublicKey
    guard
      let ikm = Crypto.hkdfSHA256(key: ecdhSecret, salt: authSecret, info: keyInfo, length: 32),
      let contentKey = Crypto.hkdfSHA256(
        key: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0],
        length: AES128GCM.keyLength),
      let nonce = Crypto.hkdfSHA256(
        key: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0],
        length: AES128GCM.nonceLength)
    else { throw .cryptoFailure("HKDF-SHA256") }
    return (contentKey, nonce)
  }
}
