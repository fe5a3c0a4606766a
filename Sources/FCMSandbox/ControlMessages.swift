/// The body of `POST /tokens`: how messages to the new registration token are answered.
struct RegistrationRequest: Codable, Equatable, Sendable {
  var answer: String?
  var retryAfter: Int?
  var delayMs: Int?

  enum CodingKeys: String, CodingKey {
    case answer
    case retryAfter = "retry_after"
    case delayMs = "delay_ms"
  }
}

/// The answer to `POST /tokens`.
struct RegistrationAnswer: Codable, Equatable, Sendable {
  var token: String
}

/// The body of `POST /token-endpoint`, and its answer (the settings now in force).
struct GrantRequest: Codable, Equatable, Sendable {
  var answer: String?
  var expiresIn: Int?
  var delayMs: Int?

  enum CodingKeys: String, CodingKey {
    case answer
    case expiresIn = "expires_in"
    case delayMs = "delay_ms"
  }
}

/// The answer to `POST /access-tokens/expire`.
struct ExpiredAnswer: Codable, Equatable, Sendable {
  var expired: Int
}

/// Why a request to a control route was refused.
struct ControlError: Codable, Equatable, Sendable {
  var error: String
}
