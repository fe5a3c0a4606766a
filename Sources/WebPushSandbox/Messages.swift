import Infrastructure

/// The body of `POST /subscriptions`: how pushes to the new subscription are answered.
struct SubscriptionRequest: Codable, Equatable, Sendable {
  var answer: Int?
  var retryAfter: Int?
  /// Where a redirect answer (301, 302, 303, 307, 308) points.
  var location: String?
  /// base64url of the application server's VAPID public key (`applicationServerKey`).
  var applicationServerKey: String?
  /// How long each answer to a push waits (a slow push service, for tests that kill a
  /// worker with pushes in flight).
  var delayMs: Int?

  enum CodingKeys: String, CodingKey {
    case answer
    case retryAfter = "retry_after"
    case location
    case applicationServerKey = "application_server_key"
    case delayMs = "delay_ms"
  }
}

/// A browser's `PushSubscription.toJSON()`: `expirationTime` is always written, as null.
struct SubscriptionJSON: Codable, Equatable, Sendable {
  struct Keys: Codable, Equatable, Sendable {
    var p256dh: String
    var auth: String
  }

  var endpoint: String
  var expirationTime: Int?
  var keys: Keys

  enum CodingKeys: String, CodingKey {
    case endpoint
    case expirationTime
    case keys
  }

  init(endpoint: String, expirationTime: Int? = nil, keys: Keys) {
    self.endpoint = endpoint
    self.expirationTime = expirationTime
    self.keys = keys
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(endpoint, forKey: .endpoint)
    try container.encode(expirationTime, forKey: .expirationTime)
    try container.encode(keys, forKey: .keys)
  }
}

/// Why a request to the sandbox itself (not a push) was refused.
struct ErrorBody: Codable, Equatable, Sendable {
  var error: String
}
