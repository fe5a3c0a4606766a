import COpenSSL

/// An RSA private key that signs RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 section
/// 3.3): how a Google service account signs the JWT it trades for an OAuth 2 access token.
/// PKCS#1 v1.5 signatures are deterministic, so one message always gives the same bytes.
public final class RS256SigningKey: @unchecked Sendable {
  // Immutable after init; OpenSSL 3 allows concurrent signing with one EVP_PKEY.
  private let key: OpaquePointer
  /// The modulus length: the signature's length is bits / 8.
  public let bits: Int

  /// The key of a PEM file: PKCS#8 ("BEGIN PRIVATE KEY", as a service account's
  /// `private_key`) or PKCS#1 ("BEGIN RSA PRIVATE KEY"); never an encrypted one.
  public init(pem: [UInt8]) throws(RS256Error) {
    guard
      let loaded = RSAKey.read(
        pem, with: { PEM_read_bio_PrivateKey($0, nil, refusePEMPassword, nil) })
    else { throw .unreadablePEM }
    key = try RSAKey.checked(loaded)
    bits = Int(EVP_PKEY_get_bits(key))
  }

  public convenience init(pem: String) throws(RS256Error) {
    try self.init(pem: Array(pem.utf8))
  }

  deinit { EVP_PKEY_free(key) }

  /// The RS256 signature of `message`, `bits / 8` bytes.
  public func sign(_ message: [UInt8]) throws(RS256Error) -> [UInt8] {
    guard let context = EVP_MD_CTX_new() else { throw .signingFailed }
    defer { EVP_MD_CTX_free(context) }
    var length = 0
    guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1,
      EVP_DigestSign(context, nil, &length, message, message.count) == 1
    else {
      ERR_clear_error()
      throw .signingFailed
    }
    var signature = [UInt8](repeating: 0, count: length)
    guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
      ERR_clear_error()
      throw .signingFailed
    }
    return Array(signature.prefix(length))
  }

  /// The public half as PEM ("BEGIN PUBLIC KEY", SubjectPublicKeyInfo), as the token
  /// endpoint's double is given it; nil if OpenSSL fails.
  public func publicKeyPEM() -> String? {
    guard let bio = BIO_new(BIO_s_mem()) else { return nil }
    defer { BIO_free(bio) }
    guard PEM_write_bio_PUBKEY(bio, key) == 1 else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
    let read = BIO_read(bio, &bytes, Int32(bytes.count))
    guard read == bytes.count else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }
}
