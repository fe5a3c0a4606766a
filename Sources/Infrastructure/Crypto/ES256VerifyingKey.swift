import COpenSSL

/// A P-256 public key that checks ES256 signatures (raw r ‖ s): how a Web Push service
/// double checks a VAPID JWT against the `k` the request carries.
public final class ES256VerifyingKey: @unchecked Sendable {
  // Immutable after init; verifying with one EVP_PKEY from several threads is safe.
  private let key: OpaquePointer
  public let publicKeyUncompressed: [UInt8]

  /// Throws for anything but the 65-byte uncompressed form of a point on P-256.
  public init(uncompressed point: [UInt8]) throws(P256Error) {
    key = try P256.publicKey(uncompressed: point)
    publicKeyUncompressed = point
  }

  deinit { EVP_PKEY_free(key) }

  /// Whether `signature` (r ‖ s, 64 bytes) is this key's ES256 signature of `message`.
  public func isValidSignature(_ signature: [UInt8], of message: [UInt8]) -> Bool {
    guard let der = ES256SigningKey.derSignature(fromRaw: signature),
      let context = EVP_MD_CTX_new()
    else { return false }
    defer { EVP_MD_CTX_free(context) }
    let verified =
      EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1
      && EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    // A signature that does not verify leaves an error queued; it is an answer, not a fault.
    ERR_clear_error()
    return verified
  }
}
