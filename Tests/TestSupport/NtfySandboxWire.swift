import Foundation

/// A message as the ntfy sandbox answers a publish and a poll (see `NtfySandbox --help`),
/// read as ntfy's own clients read ntfy's.
public struct NtfyMessageJSON: Codable, Equatable, Sendable {
  public struct Attachment: Codable, Equatable, Sendable {
    public var name: String
    public var url: String
  }

  public var id: String
  public var time: Int
  public var expires: Int?
  public var event: String
  public var topic: String
  public var title: String?
  public var message: String?
  public var priority: Int?
  public var tags: [String]?
  public var click: String?
  public var attachment: Attachment?
  public var sequenceID: String?

  enum CodingKeys: String, CodingKey {
    case id, time, expires, event, topic, title, message, priority, tags, click, attachment
    case sequenceID = "sequence_id"
  }
}

/// One line of the ntfy sandbox's record file: a publish and what it was answered.
public struct NtfyRecordLine: Codable, Equatable, Sendable {
  public var time: Date
  public var topic: String
  public var status: Int
  public var error: String?
  public var token: String?
  public var id: String?
  public var title: String?
  public var message: String?
  public var priority: Int?
  public var tags: [String]?
  public var click: String?
  public var attach: String?
  public var filename: String?
  public var sequenceID: String?

  enum CodingKeys: String, CodingKey {
    case time, topic, status, error, token, id, title, message, priority, tags, click, attach
    case filename
    case sequenceID = "sequence_id"
  }
}
