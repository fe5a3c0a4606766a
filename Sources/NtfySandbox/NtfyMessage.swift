/// A message as ntfy answers a publish and a poll with it: keys without a value are left
/// out, as ntfy's `omitempty` leaves them (the synthesized encoding omits nil).
struct NtfyMessage: Codable, Equatable, Sendable {
  struct Attachment: Codable, Equatable, Sendable {
    var name: String
    var url: String
  }

  var id: String
  var time: Int
  var expires: Int
  var event: String
  var topic: String
  var title: String?
  var message: String
  var priority: Int?
  var tags: [String]?
  var click: String?
  var attachment: Attachment?
  var sequenceID: String?

  enum CodingKeys: String, CodingKey {
    case id, time, expires, event, topic, title, message, priority, tags, click, attachment
    case sequenceID = "sequence_id"
  }

  /// ntfy keeps messages 12 hours by default (`cache-duration`).
  static let cacheSeconds = 12 * 3600

  /// The sequence a message belongs to: its `sequence_id`, or its own id, which ntfy lets a
  /// later message name as its sequence id.
  var sequence: String { sequenceID ?? id }
}
