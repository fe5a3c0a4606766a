import Events
import FoundationEssentials
import Infrastructure

/// The JSON the browser's service worker receives, encrypted (docs/interfaces.md#web-push):
/// `notification_id`, `title`, `body`, `kind` and `tag` (the notification id, so that the
/// follow-up replaces the alarm's notification in place), and `image_url` only in the
/// follow-up. Never a mower, user or device id.
struct WebPushMessage: Codable, Equatable, Sendable {
  let notificationID: String
  let title: String
  let body: String
  let kind: String
  let tag: String
  let imageURL: String?

  enum CodingKeys: String, CodingKey {
    case notificationID = "notification_id"
    case title, body, kind, tag
    case imageURL = "image_url"
  }

  /// RFC 8291 carries at most 4,096 bytes of record, 3,993 of them for the message and its
  /// padding delimiter once the header is counted; texts are cut to stay well inside.
  static let maximumTextCharacters = 1000

  init(delivery: ChannelDelivery, imageURL: String?) {
    let text = AlarmText(
      kind: delivery.kind, mowerName: delivery.mowerName, reason: delivery.reason)
    let id = delivery.notificationID.uuidString.lowercased()
    notificationID = id
    title = String(text.title.prefix(Self.maximumTextCharacters))
    body = String(text.body.prefix(Self.maximumTextCharacters))
    kind = delivery.kind
    tag = id
    self.imageURL = imageURL
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(notificationID, forKey: .notificationID)
    try container.encode(title, forKey: .title)
    try container.encode(body, forKey: .body)
    try container.encode(kind, forKey: .kind)
    try container.encode(tag, forKey: .tag)
    try container.encodeIfPresent(imageURL, forKey: .imageURL)
  }
}
