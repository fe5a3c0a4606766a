import COpenSSL
import Events
import FoundationEssentials
import Infrastructure
import Synchronization

/// The APNs provider token: an ES256 JWT from the team's .p8 key with `kid` in the header
/// and `iss`/`iat` in the claims. One token serves every push until it is refreshed, after
/// `refreshSeconds` (Apple wants a new one at most every 20 and at least every 60 minutes)
/// or when APNs calls it expired or invalid.
final class ProviderToken: Sendable {
  enum Failure: Error, CustomStringConvertible {
    case unreadableKey(path: String)
    case notAnECKey(path: String)
    case signingFailed

    var description: String {
      switch self {
      case .unreadableKey(let path):
        return "configuration error: MOWDECK_NOTIFICATIONS_APNS_KEY_PATH cannot be read (\(path))"
      case .notAnECKey(let path):
        return
          "configuration error: MOWDECK_NOTIFICATIONS_APNS_KEY_PATH is not a PKCS#8 P-256 key (\(path))"
      case .signingFailed: return "signing the APNs provider token failed"
      }
    }
  }

  private struct Current {
    var jwt: String
    var issuedAt: Date
  }

  let keyID: String
  let teamID: String
  let refreshSeconds: TimeInterval
  private let key: SigningKey
  private let clock: any WallClock
  private let current = Mutex<Current?>(nil)

  init(
    keyPath: String, keyID: String, teamID: String, clock: any WallClock,
    refreshSeconds: TimeInterval = 30 * 60
  )
    throws
  {
    guard let pem = FileManager.default.contents(atPath: keyPath), !pem.isEmpty else {
      throw Failure.unreadableKey(path: keyPath)
    }
    guard let key = SigningKey(pem: Array(pem)) else { throw Failure.notAnECKey(path: keyPath) }
    self.key = key
    self.keyID = keyID
    self.teamID = teamID
    self.clock = clock
    self.refreshSeconds = refreshSeconds
    // Sign once at start, so a key OpenSSL cannot use stops the worker before any push.
    _ = try jwt()
  }

  /// The token to send now: the cached one, or a new one when it is due.
  func jwt() throws -> String {
    let now = clock.now()
    if let cached = current.withLock({ $0 }),
      now.timeIntervalSince(cached.issuedAt) < refreshSeconds
    {
      return cached.jwt
    }
    let header = WireCoding.encode(ProviderTokenHeader(keyID: keyID))
    let claims = WireCoding.encode(
      ProviderTokenClaims(iss: teamID, iat: Int(now.timeIntervalSince1970)))
    let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
    guard let signature = key.sign(Array(signingInput.utf8)) else { throw Failure.signingFailed }
    let token = signingInput + "." + Base64URL.encode(signature)
    current.withLock { $0 = Current(jwt: token, issuedAt: now) }
    return token
  }

  /// Forgets the cached token after APNs rejected it; the next `jwt()` signs a new one.
  func invalidate() {
    current.withLock { $0 = nil }
  }
}

/// A P-256 private key held by OpenSSL; signs ES256 (raw r‖s, 64 bytes, as JWS wants).
final class SigningKey: @unchecked Sendable {
  // Immutable after init; EVP_PKEY is safe to use from several threads for signing.
  private let key: OpaquePointer

  init?(pem: [UInt8]) {
    let loaded: OpaquePointer? = pem.withUnsafeBytes { raw in
      guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
      defer { BIO_free(bio) }
      return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
    }
    guard let loaded else { return nil }
    guard EVP_PKEY_get_base_id(loaded) == EVP_PKEY_EC, EVP_PKEY_get_bits(loaded) == 256 else {
      EVP_PKEY_free(loaded)
      return nil
    }
    key = loaded
  }

  deinit { EVP_PKEY_free(key) }

  func sign(_ message: [UInt8]) -> [UInt8]? {
    guard let context = EVP_MD_CTX_new() else { return nil }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { return nil }
    var length = 0
    guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { return nil }
    var der = [UInt8](repeating: 0, count: length)
    guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { return nil }
    return Self.rawSignature(fromDER: Array(der.prefix(length)))
  }

  /// DER `ECDSA-Sig-Value` to the 64-byte r‖s form of JWS (RFC 7518 section 3.4).
  static func rawSignature(fromDER der: [UInt8]) -> [UInt8]? {
    var pointer: UnsafePointer<UInt8>? = nil
    return der.withUnsafeBufferPointer { buffer -> [UInt8]? in
      pointer = buffer.baseAddress
      guard let signature = d2i_ECDSA_SIG(nil, &pointer, buffer.count) else { return nil }
      defer { ECDSA_SIG_free(signature) }
      var r: OpaquePointer? = nil
      var s: OpaquePointer? = nil
      ECDSA_SIG_get0(signature, &r, &s)
      var out = [UInt8](repeating: 0, count: 64)
      guard BN_bn2binpad(r, &out, 32) == 32 else { return nil }
      let wroteS = out.withUnsafeMutableBufferPointer { BN_bn2binpad(s, $0.baseAddress! + 32, 32) }
      return wroteS == 32 ? out : nil
    }
  }
}
