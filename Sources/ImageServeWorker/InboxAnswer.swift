import Events
import FoundationEssentials
import Infrastructure

/// The body of `GET /api/v1/notifications/inbox` (docs/interfaces.md#inbox; `InboxPage` and
/// `InboxItem` in docs/openapi.yaml), written through `WireCoding`.
///
/// Unlike the messages between the workers, an HTTP answer writes an absent value as `null`
/// and its UUIDs in lower case (docs/interfaces.md, conventions), so both types encode
/// themselves field by field; reading back uses the same keys.
struct InboxAnswer: Codable, Equatable, Sendable {
  struct Item: Codable, Equatable, Sendable {
    let itemID: UUID
    let notificationID: UUID
    let mowerID: String
    let mowerName: String?
    let kind: String
    let reason: String?
    let title: String
    let body: String
    let occurredAt: Date
    let createdAt: Date
    /// The photo can be fetched now.
    let hasImage: Bool
    /// `available`, `pending`, `gone` or `none`.
    let photo: String

    enum CodingKeys: String, CodingKey {
      case itemID = "item_id"
      case notificationID = "notification_id"
      case mowerID = "mower_id"
      case mowerName = "mower_name"
      case kind, reason, title, body
      case occurredAt = "occurred_at"
      case createdAt = "created_at"
      case hasImage = "has_image"
      case photo
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(itemID.uuidString.lowercased(), forKey: .itemID)
      try container.encode(notificationID.uuidString.lowercased(), forKey: .notificationID)
      try container.encode(mowerID, forKey: .mowerID)
      // `Optional`'s own encoding: `null` when absent, not left out.
      try container.encode(mowerName, forKey: .mowerName)
      try container.encode(kind, forKey: .kind)
      try container.encode(reason, forKey: .reason)
      try container.encode(title, forKey: .title)
      try container.encode(body, forKey: .body)
      try container.encode(occurredAt, forKey: .occurredAt)
      try container.encode(createdAt, forKey: .createdAt)
      try container.encode(hasImage, forKey: .hasImage)
      try container.encode(photo, forKey: .photo)
    }
  }

  let items: [Item]
  /// The `item_id` to pass as `before` for the next page; nil (`null`) on the last page.
  let nextBefore: UUID?

  enum CodingKeys: String, CodingKey {
    case items
    case nextBefore = "next_before"
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(items, forKey: .items)
    try container.encode(nextBefore?.uuidString.lowercased(), forKey: .nextBefore)
  }
}

extension InboxAnswer {
  /// One page of the store, as the user sees it: the alarm's texts and where its photo stands.
  init(page items: [InboxItem], more: Bool) {
    self.items = items.map(Item.init)
    nextBefore = more ? items.last?.itemID : nil
  }
}

extension InboxAnswer.Item {
  init(_ item: InboxItem) {
    let text = AlarmText(kind: item.kind, mowerName: item.mowerName, reason: item.reason)
    self.init(
      itemID: item.itemID, notificationID: item.notificationID, mowerID: item.mowerID,
      mowerName: item.mowerName, kind: item.kind, reason: item.reason, title: text.title,
      body: text.body, occurredAt: item.occurredAt, createdAt: item.createdAt,
      hasImage: item.photo == .ready, photo: item.photo.label)
  }
}
