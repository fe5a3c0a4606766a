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
  private let key: ES256SigningKey
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
    guard let key = ES256SigningKey(pem: Array(pem)) else {
      throw Failure.notAnECKey(path: keyPath)
    }
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
