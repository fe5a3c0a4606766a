import Events
import FoundationEssentials
import Infrastructure

/// One item of a user's inbox, as the store reads it (`InboxAnswer.Item` is what the API
/// writes of it).
struct InboxItem: Sendable {
  let itemID: UUID
  let notificationID: UUID
  let mowerID: String
  let mowerName: String?
  let kind: String
  let reason: String?
  let occurredAt: Date
  let createdAt: Date
  let photo: PhotoAvailability
}

extension PhotoAvailability {
  /// How the inbox names it: `available`, `pending`, `gone` or `none`.
  var label: String {
    switch self {
    case .ready: return "available"
    case .notReady: return "pending"
    case .gone: return "gone"
    case .none: return "none"
    }
  }
}

/// The inbox list: a user's notifications, newest first, a page at a time (keyset paging
/// on `(created_at, inbox_item_id)`, so a page never skips or repeats an item while new
/// ones arrive).
struct InboxStore: Sendable {
  let pool: DatabasePool

  /// Up to `query.limit` items, and whether more follow.
  func page(userID: String, query: InboxQuery) async throws -> (items: [InboxItem], more: Bool) {
    let rows = try await pool.query(
      """
      SELECT n.inbox_item_id, n.notification_id, n.created_at, n.image_id, a.mower_id,
             coalesce(a.mower_name, m.name) AS mower_name, a.kind, a.reason, a.occurred_at,
             r.state AS reservation, i.state AS stored,
             coalesce(i.expires_at > now(), false) AS fresh
      FROM notifications n
      JOIN alarms a ON a.event_id = n.event_id
      LEFT JOIN mowers m ON m.mower_id = a.mower_id
      LEFT JOIN photo_reservations r ON r.image_id = n.image_id
      LEFT JOIN notification_images i ON i.image_id = n.image_id
      WHERE n.user_id = \(userID)
        AND (\(query.before)::uuid IS NULL OR (n.created_at, n.inbox_item_id) <
             (SELECT created_at, inbox_item_id FROM notifications
              WHERE inbox_item_id = \(query.before) AND user_id = \(userID)))
      ORDER BY n.created_at DESC, n.inbox_item_id DESC
      LIMIT \(query.limit + 1)
      """)
    let items = try rows.prefix(query.limit).map { row throws(DatabaseError) in
      InboxItem(
        itemID: try row.uuid("inbox_item_id"), notificationID: try row.uuid("notification_id"),
        mowerID: try row.string("mower_id"), mowerName: try row.optionalString("mower_name"),
        kind: try row.string("kind"), reason: try row.optionalString("reason"),
        occurredAt: try row.date("occurred_at"), createdAt: try row.date("created_at"),
        photo: PhotoAvailability.decide(
          hasImage: try row.optionalUUID("image_id") != nil,
          reservation: try row.optionalString("reservation"),
          stored: try row.optionalString("stored"), fresh: try row.bool("fresh")))
    }
    return (items, rows.count > query.limit)
  }
}
