import Foundation

/// One record line: what a publish carried and what it was answered. Every key is always
/// written, null when it does not apply, so that readers need no guesswork.
struct RecordLine: Codable, Equatable, Sendable {
  var time: Date
  var topic: String
  var status = 0
  /// Why the publish was refused, or null.
  var error: String?
  /// The bearer token presented.
  var token: String?
  /// The message's id, when it was kept.
  var id: String?
  var title: String?
  var message: String?
  var priority: Int?
  var tags: [String]?
  var click: String?
  var attach: String?
  var filename: String?
  var sequenceID: String?

  init(time: Date, topic: String) {
    self.time = time
    self.topic = topic
  }

  enum CodingKeys: String, CodingKey {
    case time, topic, status, error, token, id, title, message, priority, tags, click, attach
    case filename
    case sequenceID = "sequence_id"
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(time, forKey: .time)
    try container.encode(topic, forKey: .topic)
    try container.encode(status, forKey: .status)
    // `encode` of an Optional writes null; the synthesized `encodeIfPresent` would omit it.
    try container.encode(error, forKey: .error)
    try container.encode(token, forKey: .token)
    try container.encode(id, forKey: .id)
    try container.encode(title, forKey: .title)
    try container.encode(message, forKey: .message)
    try container.encode(priority, forKey: .priority)
    try container.encode(tags, forKey: .tags)
    try container.encode(click, forKey: .click)
    try container.encode(attach, forKey: .attach)
    try container.encode(filename, forKey: .filename)
    try container.encode(sequenceID, forKey: .sequenceID)
  }
}
