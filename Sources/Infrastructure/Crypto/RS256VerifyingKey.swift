import COpenSSL

/// An RSA public key that checks RS256 signatures: how the OAuth token endpoint's double
/// checks a service account's JWT, as Google checks it with the account's public key.
public final class RS256VerifyingKey: @unchecked Sendable {
  // Immutable after init; verifying with one EVP_PKEY from several threads is safe.
  private let key: OpaquePointer

  /// The key of a PEM public key ("BEGIN PUBLIC KEY") or of an X.509 certificate ("BEGIN
  /// CERTIFICATE", as Google publishes a service account's keys).
  public init(pem: [UInt8]) throws(RS256Error) {
    let loaded =
      RSAKey.read(pem, with: { PEM_read_bio_PUBKEY($0, nil, refusePEMPassword, nil) })
      ?? RSAKey.read(pem, with: Self.certificateKey)
    guard let loaded else { throw .unreadablePEM }
    key = try RSAKey.checked(loaded)
  }

  public convenience init(pem: String) throws(RS256Error) {
    try self.init(pem: Array(pem.utf8))
  }

  deinit { EVP_PKEY_free(key) }

  /// Whether `signature` is this key's RS256 signature of `message`.
  public func isValidSignature(_ signature: [UInt8], of message: [UInt8]) -> Bool {
    guard let context = EVP_MD_CTX_new() else { return false }
    defer { EVP_MD_CTX_free(context) }
    let verified =
      EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1
      && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    // A signature that does not verify leaves an error queued; it is an answer, not a fault.
    ERR_clear_error()
    return verified
  }

  /// The public key of the certificate a BIO holds (a new reference the caller frees).
  private static func certificateKey(_ bio: OpaquePointer) -> OpaquePointer? {
    guard let certificate = PEM_read_bio_X509(bio, nil, refusePEMPassword, nil) else {
      return nil
    }
    defer { X509_free(certificate) }
    return X509_get_pubkey(certificate)
  }
}
