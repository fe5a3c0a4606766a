/// The body of `POST /sandbox/topics/TOPIC`, and its answer (the settings now in force).
struct TopicRequest: Codable, Equatable, Sendable {
  var answer: Int?
  var retryAfter: Int?
  var delayMs: Int?

  enum CodingKeys: String, CodingKey {
    case answer
    case retryAfter = "retry_after"
    case delayMs = "delay_ms"
  }
}

/// Why a request to a control route was refused.
struct ControlError: Codable, Equatable, Sendable {
  var error: String
}
