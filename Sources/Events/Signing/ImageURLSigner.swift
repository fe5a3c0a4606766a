import FoundationEssentials
import Infrastructure

/// Signs and verifies push-image URLs (docs/interfaces.md#apns, ADR 0008):
/// `<origin>/api/v1/notifications/push-images/<notification_id>?e=<expiry>&s=<signature>`, the
/// signature being HMAC-SHA256 over a fixed purpose, the notification id and the expiry, base64url
/// without padding. Verification accepts the current key and the previous ones, so a key can be
/// rotated without breaking URLs already sent.
public struct ImageURLSigner: Sendable {
  public static let purpose = "mowdeck.push-image.v1"
  public static let path = "/api/v1/notifications/push-images/"

  private let key: [UInt8]
  private let previousKeys: [[UInt8]]

  public init(key: [UInt8], previousKeys: [[UInt8]] = []) {
    self.key = key
    self.previousKeys = previousKeys
  }

  public enum Verdict: Sendable, Equatable {
    /// Genuine and not expired: the notification id it grants access to.
    case valid(UUID)
    /// Genuine, but past its expiry.
    case expired(UUID)
    /// Not ours: wrong or missing signature, malformed id or expiry.
    case invalid
  }

  public func signature(notificationID: UUID, expiry: Int64) -> String {
    Base64URL.encode(mac(key, notificationID: notificationID, expiry: expiry))
  }

  public func url(origin: String, notificationID: UUID, expiry: Int64) -> String {
    let id = notificationID.uuidString.lowercased()
    return
      "\(origin)\(Self.path)\(id)?e=\(expiry)&s=\(signature(notificationID: notificationID, expiry: expiry))"
  }

  /// Checks the three parts of a URL as received. The expiry second itself is still valid.
  /// No database is touched: a forged request costs one HMAC per key.
  public func verify(
    notificationID idText: String, expiry expiryText: String, signature: String, now: Date
  )
    -> Verdict
  {
    // Foundation on Linux parses some malformed spellings (found by fuzzing); only the
    // canonical lower-case form is ours, so one notification has one URL.
    guard idText.utf8.count == 36, let id = UUID(uuidString: idText),
      id.uuidString.lowercased() == idText,
      expiryText.utf8.count <= 12, !expiryText.isEmpty,
      expiryText.utf8.allSatisfy({ (48...57).contains($0) }), let expiry = Int64(expiryText),
      signature.utf8.count == 43, let given = Base64URL.decode(signature)
    else { return .invalid }
    var genuine = false
    for candidate in [key] + previousKeys {
      // Every key is tried, so the time does not tell which one matched.
      if Crypto.constantTimeEquals(mac(candidate, notificationID: id, expiry: expiry), given) {
        genuine = true
      }
    }
    guard genuine else { return .invalid }
    return Double(expiry) >= now.timeIntervalSince1970.rounded(.down) ? .valid(id) : .expired(id)
  }

  private func mac(_ key: [UInt8], notificationID: UUID, expiry: Int64) -> [UInt8] {
    let message = "\(Self.purpose)\n\(notificationID.uuidString.lowercased())\n\(expiry)"
    return Crypto.hmacSHA256(key: key, message: Array(message.utf8))
  }
}
