import COpenSSL

/// AES-128-GCM through OpenSSL's EVP interface, with the 16-byte tag appended to the
/// ciphertext as RFC 8188 records carry it. Internal: Web Push is its only user.
enum AES128GCM {
  static let keyLength = 16
  static let nonceLength = 12
  static let tagLength = 16

  /// Ciphertext ‖ tag; nil if OpenSSL fails (it does not for valid lengths).
  static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
    guard key.count == keyLength, nonce.count == nonceLength,
      let context = EVP_CIPHER_CTX_new()
    else { return nil }
    defer { EVP_CIPHER_CTX_free(context) }
    var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
    var length: Int32 = 0
    var finalLength: Int32 = 0
    let sealed = out.withUnsafeMutableBufferPointer { buffer -> Bool in
      guard EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1,
        EVP_EncryptUpdate(
          context, buffer.baseAddress, &length, plaintext, Int32(plaintext.count)) == 1,
        Int(length) == plaintext.count,
        EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(length), &finalLength) == 1,
        finalLength == 0
      else { return false }
      return EVP_CIPHER_CTX_ctrl(
        context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), buffer.baseAddress! + plaintext.count)
        == 1
    }
    return sealed ? out : nil
  }

  /// The plaintext of ciphertext ‖ tag; nil when the tag does not authenticate it (a wrong
  /// key, or any changed byte).
  static func open(_ sealed: ArraySlice<UInt8>, key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
    guard key.count == keyLength, nonce.count == nonceLength, sealed.count >= tagLength,
      let context = EVP_CIPHER_CTX_new()
    else { return nil }
    defer { EVP_CIPHER_CTX_free(context) }
    let ciphertext = Array(sealed.dropLast(tagLength))
    var tag = Array(sealed.suffix(tagLength))
    // One spare byte, so the buffer has an address even for an empty plaintext.
    var out = [UInt8](repeating: 0, count: ciphertext.count + 1)
    var length: Int32 = 0
    var finalLength: Int32 = 0
    let opened = out.withUnsafeMutableBufferPointer { buffer -> Bool in
      EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1
        && EVP_DecryptUpdate(
          context, buffer.baseAddress, &length, ciphertext, Int32(ciphertext.count)) == 1
        && Int(length) == ciphertext.count
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1
        && EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(length), &finalLength) == 1
    }
    ERR_clear_error()
    return opened ? Array(out.prefix(ciphertext.count)) : nil
  }
}
