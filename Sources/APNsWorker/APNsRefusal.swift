import Infrastructure

/// What APNs writes in the body of an answer other than 200 (docs/interfaces.md#apns):
/// `{"reason": "BadDeviceToken"}`, and with 410 `Unregistered` also `timestamp`, when the
/// token stopped being valid, in milliseconds since 1970.
///
/// Read leniently, field by field: a field of another type counts as absent, so that a
/// `reason` is never lost to a malformed `timestamp` (the reason decides what happens).
struct APNsRefusal: Decodable, Equatable, Sendable {
  let reason: String?
  let timestamp: Int64?

  enum CodingKeys: String, CodingKey {
    case reason, timestamp
  }

  init(reason: String?, timestamp: Int64?) {
    self.reason = reason
    self.timestamp = timestamp
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    reason = try? container.decodeIfPresent(String.self, forKey: .reason)
    // An integer, or a number written with a zero fraction or an exponent that is one.
    if let integer = try? container.decodeIfPresent(Int64.self, forKey: .timestamp) {
      timestamp = integer
    } else {
      timestamp = (try? container.decodeIfPresent(Double.self, forKey: .timestamp))
        .flatMap { Int64(exactly: $0) }
    }
  }

  /// The body's fields; nil when it is no JSON object (an empty body, a proxy's HTML page).
  static func read(_ body: [UInt8]) -> APNsRefusal? {
    try? WireCoding.decode(APNsRefusal.self, from: body)
  }

  /// The reasons Apple documents for its provider API ("Handling notification responses
  /// from APNs"), the label values of `mowdeck_apns_refusals_total{reason}`.
  static let documentedReasons: Set<String> = [
    "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority",
    "BadTopic", "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType",
    "MissingDeviceToken", "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate",
    "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden", "InvalidProviderToken",
    "MissingProviderToken", "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadPath",
    "MethodNotAllowed", "ExpiredToken", "Unregistered", "PayloadTooLarge",
    "TooManyProviderTokenUpdates", "TooManyRequests", "InternalServerError",
    "ServiceUnavailable", "Shutdown",
  ]

  /// The `reason` label of an answer's body: Apple's reason, `other` for any other text
  /// (a proxy's page, a reason Apple adds later) and `none` for no reason at all, so that
  /// what the far end writes cannot grow the label's values without bound.
  static func metricLabel(of body: [UInt8]) -> String {
    guard let reason = read(body)?.reason else { return "none" }
    return documentedReasons.contains(reason) ? reason : "other"
  }
}
