import Events
import FoundationEssentials
import Infrastructure

/// What a photo fetch needs to know about one notification, read in one statement
/// (without the bytes, which only a cache miss reads).
struct PhotoRecord: Sendable {
  let notificationID: UUID
  /// The alarm: the correlation id of `image.served`.
  let eventID: UUID
  let imageID: UUID?
  let availability: PhotoAvailability
  let byteSize: Int
  /// Whether `image.served` was already written for this notification.
  let served: Bool

  /// The statement `init(row:)` reads, up to its WHERE clause. Kept as text and joined with
  /// `appendLiteral` rather than `\(fragment:)`, which re-scans the text for placeholders on
  /// every request.
  static let select = """
    SELECT n.notification_id, n.event_id, n.image_id, r.state AS reservation,
           i.state AS stored, coalesce(i.expires_at > now(), false) AS fresh,
           coalesce(i.byte_size, 0) AS byte_size,
           EXISTS (SELECT 1 FROM events e
                   WHERE e.correlation_id = n.event_id AND e.type = 'image.served'
                     AND e.data->>'notification_id' = n.notification_id::text) AS served
    FROM notifications n
    LEFT JOIN photo_reservations r ON r.image_id = n.image_id
    LEFT JOIN notification_images i ON i.image_id = n.image_id
    """

  init(row: Row) throws(DatabaseError) {
    notificationID = try row.uuid("notification_id")
    eventID = try row.uuid("event_id")
    imageID = try row.optionalUUID("image_id")
    availability = PhotoAvailability.decide(
      hasImage: imageID != nil, reservation: try row.optionalString("reservation"),
      stored: try row.optionalString("stored"), fresh: try row.bool("fresh"))
    byteSize = try row.int("byte_size")
    served = try row.bool("served")
  }
}

/// The reads of the photo routes.
struct PhotoStore: Sendable {
  let pool: DatabasePool

  /// The notification a push URL names, or nil when there is none.
  func record(notificationID: UUID) async throws -> PhotoRecord? {
    var sql = SQL.StringInterpolation(literalCapacity: 0, interpolationCount: 1)
    sql.appendLiteral(PhotoRecord.select + " WHERE n.notification_id = ")
    sql.appendInterpolation(notificationID)
    return try await pool.query(SQL(stringInterpolation: sql)).first.map {
      try PhotoRecord(row: $0)
    }
  }

  /// The inbox item `itemID` if it belongs to `userID`, else nil (another user's item looks
  /// exactly like one that does not exist).
  func record(itemID: UUID, userID: String) async throws -> PhotoRecord? {
    var sql = SQL.StringInterpolation(literalCapacity: 0, interpolationCount: 2)
    sql.appendLiteral(PhotoRecord.select + " WHERE n.inbox_item_id = ")
    sql.appendInterpolation(itemID)
    sql.appendLiteral(" AND n.user_id = ")
    sql.appendInterpolation(userID)
    return try await pool.query(SQL(stringInterpolation: sql)).first.map {
      try PhotoRecord(row: $0)
    }
  }

  /// The stored JPEG if it is still there and fresh (it may have been pruned since the
  /// record was read).
  func jpeg(imageID: UUID) async throws -> [UInt8]? {
    try await pool.firstBytes(
      """
      SELECT jpeg FROM notification_images
      WHERE image_id = \(imageID) AND state = 'captured' AND expires_at > now()
      """)
  }
}
