import Foundation

/// One record line: what a push carried and what it was answered. Every key is always
/// written, null when it does not apply, so that readers need no guesswork.
struct RecordLine: Codable, Equatable, Sendable {
  var time: Date
  var subscription: String
  var status: Int
  var error: String?
  var ttl: Int?
  var urgency: String?
  var topic: String?
  var vapidSub: String?
  var vapidAud: String?
  var vapidJWT: String?
  var payload: String?
  var payloadBytes: Int

  enum CodingKeys: String, CodingKey {
    case time, subscription, status, error, ttl, urgency, topic
    case vapidSub = "vapid_sub"
    case vapidAud = "vapid_aud"
    case vapidJWT = "vapid_jwt"
    case payload
    case payloadBytes = "payload_bytes"
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(time, forKey: .time)
    try container.encode(subscription, forKey: .subscription)
    try container.encode(status, forKey: .status)
    // `encode` of an Optional writes null; the synthesized `encodeIfPresent` would omit it.
    try container.encode(error, forKey: .error)
    try container.encode(ttl, forKey: .ttl)
    try container.encode(urgency, forKey: .urgency)
    try container.encode(topic, forKey: .topic)
    try container.encode(vapidSub, forKey: .vapidSub)
    try container.encode(vapidAud, forKey: .vapidAud)
    try container.encode(vapidJWT, forKey: .vapidJWT)
    try container.encode(payload, forKey: .payload)
    try container.encode(payloadBytes, forKey: .payloadBytes)
  }
}
