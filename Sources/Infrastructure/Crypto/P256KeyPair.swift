import COpenSSL

/// A P-256 private key and its public point, held by OpenSSL: the ECDH half of Web Push
/// (RFC 8291 wants a fresh one per message on the sending side; the user agent's long-lived
/// one decrypts) and the key under `ES256SigningKey`.
public final class P256KeyPair: @unchecked Sendable {
  // Immutable after init; OpenSSL 3 allows concurrent signing and deriving with one EVP_PKEY.
  let key: OpaquePointer
  /// The public key as the 65-byte uncompressed point 0x04 ‖ x ‖ y (Web Push's `p256dh`,
  /// VAPID's `k`).
  public let publicKeyUncompressed: [UInt8]

  /// A fresh key pair from OpenSSL's random generator.
  public convenience init() throws(P256Error) {
    try self.init(owning: P256.generate(), failure: .keyGenerationFailed)
  }

  /// The key pair of a raw 32-byte private scalar (as JWK `d` or the RFC examples give it).
  public convenience init(privateKey scalar: [UInt8]) throws(P256Error) {
    try self.init(owning: P256.privateKey(scalar: scalar), failure: .invalidPrivateKey)
  }

  /// A P-256 private key from PEM (PKCS#8, as Apple's .p8 files, or SEC 1 "EC PRIVATE KEY").
  public convenience init(pem: [UInt8]) throws(P256Error) {
    let loaded: OpaquePointer? = pem.withUnsafeBytes { raw in
      guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
      defer { BIO_free(bio) }
      return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
    }
    guard let loaded else {
      ERR_clear_error()
      throw .notAP256PEMKey
    }
    guard P256.isP256(loaded) else {
      EVP_PKEY_free(loaded)
      throw .notAP256PEMKey
    }
    try self.init(owning: loaded, failure: .notAP256PEMKey)
  }

  private init(owning key: OpaquePointer, failure: P256Error) throws(P256Error) {
    guard let publicKey = P256.uncompressedPublicKey(of: key) else {
      EVP_PKEY_free(key)
      throw failure
    }
    self.key = key
    self.publicKeyUncompressed = publicKey
  }

  deinit { EVP_PKEY_free(key) }

  /// ECDH with the peer's uncompressed public point: the 32-byte shared x coordinate.
  /// Throws `publicKeyNotOnCurve` for a point that is not on P-256, so an invalid-curve
  /// point never reaches the multiplication.
  public func sharedSecret(withPublicKey peer: [UInt8]) throws(P256Error) -> [UInt8] {
    let peerKey = try P256.publicKey(uncompressed: peer)
    defer { EVP_PKEY_free(peerKey) }
    guard let secret = P256.sharedSecret(privateKey: key, peer: peerKey) else {
      throw .keyAgreementFailed
    }
    return secret
  }
}
