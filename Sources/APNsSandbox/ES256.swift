import COpenSSL
import Foundation
import Infrastructure

/// ES256 (ECDSA over P-256 with SHA-256) as JWS uses it: signatures are the raw 64 bytes
/// r‖s (RFC 7518 section 3.4), while OpenSSL speaks DER `ECDSA-Sig-Value`.
enum ES256 {
  // The signature conversions are `ES256SigningKey`'s, shared with the APNs worker.
  static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
    ES256SigningKey.derSignature(fromRaw: raw)
  }

  static func rawSignature(fromDER der: [UInt8]) -> [UInt8]? {
    ES256SigningKey.rawSignature(fromDER: der)
  }

  /// Reads a PEM file into an OpenSSL key with `read` (public or private), checks it is
  /// P-256; nil otherwise.
  fileprivate static func loadKey(
    pem: [UInt8], _ read: (OpaquePointer) -> OpaquePointer?
  ) -> OpaquePointer? {
    let key: OpaquePointer? = pem.withUnsafeBytes { bytes in
      guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
      defer { BIO_free(bio) }
      return read(bio)
    }
    guard let key else { return nil }
    guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256 else {
      EVP_PKEY_free(key)
      return nil
    }
    return key
  }
}

/// The team's public key, against which every provider token is checked.
final class ES256PublicKey {
  private let key: OpaquePointer

  init(pemFile path: String) throws(SandboxError) {
    guard let pem = FileManager.default.contents(atPath: path) else {
      throw SandboxError(.unreadableFile(path: path))
    }
    guard let key = ES256.loadKey(pem: Array(pem), { PEM_read_bio_PUBKEY($0, nil, nil, nil) })
    else {
      throw SandboxError(.badPublicKey(path: path), detail: SandboxError.openSSLErrors())
    }
    self.key = key
  }

  deinit { EVP_PKEY_free(key) }

  /// Whether `signature` (r‖s) is this key's signature of `message`.
  func verify(_ message: some Collection<UInt8>, signature: [UInt8]) -> Bool {
    guard let der = ES256.derSignature(fromRaw: signature), let context = EVP_MD_CTX_new() else {
      return false
    }
    defer { EVP_MD_CTX_free(context) }
    let bytes = Array(message)
    let verified =
      EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1
      && EVP_DigestVerify(context, der, der.count, bytes, bytes.count) == 1
    // A failed verification leaves an error in OpenSSL's queue; it is an answer, not a fault.
    ERR_clear_error()
    return verified
  }
}

/// A P-256 private key (the .p8 file), for `APNsSandbox make-jwt` and the tests.
final class ES256PrivateKey {
  private let key: OpaquePointer

  init(pemFile path: String) throws(SandboxError) {
    guard let pem = FileManager.default.contents(atPath: path) else {
      throw SandboxError(.unreadableFile(path: path))
    }
    guard
      let key = ES256.loadKey(pem: Array(pem), { PEM_read_bio_PrivateKey($0, nil, nil, nil) })
    else {
      throw SandboxError(.badPrivateKey(path: path), detail: SandboxError.openSSLErrors())
    }
    self.key = key
  }

  deinit { EVP_PKEY_free(key) }

  /// The r‖s signature of `message`; nil if OpenSSL fails.
  func sign(_ message: [UInt8]) -> [UInt8]? {
    guard let context = EVP_MD_CTX_new() else { return nil }
    defer { EVP_MD_CTX_free(context) }
    var length = 0
    guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1,
      EVP_DigestSign(context, nil, &length, message, message.count) == 1
    else { return nil }
    var der = [UInt8](repeating: 0, count: length)
    guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { return nil }
    return ES256.rawSignature(fromDER: Array(der.prefix(length)))
  }
}
