import COpenSSL

/// The few primitives the project needs from OpenSSL.
public enum Crypto {
  public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    _ = key.withUnsafeBufferPointer { keyBuffer in
      message.withUnsafeBufferPointer { messageBuffer in
        HMAC(
          EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count), messageBuffer.baseAddress,
          messageBuffer.count, &out, &length)
      }
    }
    return out
  }

  /// HKDF-SHA256 (RFC 5869) of `length` bytes.
  public static func hkdfSHA256(key: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8]?
  {
    guard let context = EVP_PKEY_CTX_new_id(NID_hkdf, nil) else { return nil }
    defer { EVP_PKEY_CTX_free(context) }
    var out = [UInt8](repeating: 0, count: length)
    var outLength = length
    guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1,
      EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(salt.count)) == 1,
      EVP_PKEY_CTX_set1_hkdf_key(context, key, Int32(key.count)) == 1,
      EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(info.count)) == 1,
      EVP_PKEY_derive(context, &out, &outLength) == 1, outLength == length
    else { return nil }
    return out
  }

  /// Compares in time that depends only on the length, not on where the bytes differ.
  public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return CRYPTO_memcmp(a, b, a.count) == 0
  }
}
