import COpenSSL

/// A P-256 private key that signs ES256 (ECDSA with SHA-256) as JWS wants it: raw r ‖ s,
/// 64 bytes (RFC 7518 section 3.4). The APNs provider token and VAPID (RFC 8292) both sign
/// their JWTs with one.
public final class ES256SigningKey: Sendable {
  public let keyPair: P256KeyPair

  /// The public key as the 65-byte uncompressed point, as VAPID's `k` parameter carries it.
  public var publicKeyUncompressed: [UInt8] { keyPair.publicKeyUncompressed }

  public init(keyPair: P256KeyPair) {
    self.keyPair = keyPair
  }

  /// The key of a PEM file (PKCS#8 as Apple's .p8, or SEC 1); nil unless it is P-256.
  public convenience init?(pem: [UInt8]) {
    guard let keyPair = try? P256KeyPair(pem: pem) else { return nil }
    self.init(keyPair: keyPair)
  }

  /// A fresh signing key (a new VAPID identity, or a test's).
  public static func generate() throws(P256Error) -> ES256SigningKey {
    ES256SigningKey(keyPair: try P256KeyPair())
  }

  /// The r ‖ s signature of `message`; nil if OpenSSL fails. ECDSA signatures are randomized,
  /// so two signatures of one message differ.
  public func sign(_ message: [UInt8]) -> [UInt8]? {
    guard let context = EVP_MD_CTX_new() else { return nil }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, keyPair.key) == 1 else {
      return nil
    }
    var length = 0
    guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { return nil }
    var der = [UInt8](repeating: 0, count: length)
    guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { return nil }
    return Self.rawSignature(fromDER: Array(der.prefix(length)))
  }

  /// DER `ECDSA-Sig-Value` (what OpenSSL produces) to the 64-byte r ‖ s of JWS.
  public static func rawSignature(fromDER der: [UInt8]) -> [UInt8]? {
    der.withUnsafeBufferPointer { buffer -> [UInt8]? in
      var cursor = buffer.baseAddress
      guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
      defer { ECDSA_SIG_free(signature) }
      var out = [UInt8](repeating: 0, count: 64)
      let fits = out.withUnsafeMutableBufferPointer { raw in
        BN_bn2binpad(ECDSA_SIG_get0_r(signature), raw.baseAddress, 32) == 32
          && BN_bn2binpad(ECDSA_SIG_get0_s(signature), raw.baseAddress! + 32, 32) == 32
      }
      return fits ? out : nil
    }
  }

  /// The 64-byte r ‖ s of JWS to DER, as OpenSSL verifies it; nil unless exactly 64 bytes.
  public static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
    guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
    defer { ECDSA_SIG_free(signature) }
    let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
    let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
    // ECDSA_SIG_set0 takes ownership of both numbers only when it succeeds.
    guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
      BN_free(r)
      BN_free(s)
      return nil
    }
    let length = i2d_ECDSA_SIG(signature, nil)
    guard length > 0 else { return nil }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
      var cursor = buffer.baseAddress
      return i2d_ECDSA_SIG(signature, &cursor)
    }
    return written == length ? der : nil
  }
}
