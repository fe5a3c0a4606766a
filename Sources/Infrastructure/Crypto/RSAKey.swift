import COpenSSL

/// The OpenSSL calls the RS256 key types share: reading PEM text into an `EVP_PKEY` and
/// making sure it is RSA of a usable size.
enum RSAKey {
  /// RFC 7518 section 3.3.
  static let minimumBits = 2048

  /// `read` applied to a memory BIO over `pem`; nil (and OpenSSL's error queue cleared)
  /// when it finds nothing.
  static func read(
    _ pem: [UInt8], with read: (OpaquePointer) -> OpaquePointer?
  ) -> OpaquePointer? {
    let key: OpaquePointer? = pem.withUnsafeBytes { raw in
      guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
      defer { BIO_free(bio) }
      return read(bio)
    }
    if key == nil { ERR_clear_error() }
    return key
  }

  /// Takes ownership of `key`: returns it when it is RSA of at least 2048 bits, else frees
  /// it and throws.
  static func checked(_ key: OpaquePointer) throws(RS256Error) -> OpaquePointer {
    guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
      EVP_PKEY_free(key)
      throw .notRSA
    }
    let bits = Int(EVP_PKEY_get_bits(key))
    guard bits >= minimumBits else {
      EVP_PKEY_free(key)
      throw .keyTooSmall(bits: bits)
    }
    return key
  }
}

/// The password callback for PEM reads: refuses at once, so an encrypted key is reported
/// as unreadable instead of OpenSSL's default callback prompting on a terminal.
let refusePEMPassword:
  @convention(c) (
    UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?
  ) -> Int32 = { _, _, _, _ in 0 }
