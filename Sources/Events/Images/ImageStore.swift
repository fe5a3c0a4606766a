import FoundationEssentials
import Infrastructure

/// The one writer of `notification_images`. Every write enforces retention under the
/// table's transaction-scoped advisory lock, held until commit, so the table never holds
/// more than the limits allow at any moment, however many replicas write at once: each
/// committer trims with every earlier commit in view (ADR 0007). The lock is taken after
/// the row is written, so the large inserts of several writers overlap.
public struct ImageStore: Sendable {
  public let limits: ImageLimits
  private let eventLog = EventLog()

  public init(limits: ImageLimits) { self.limits = limits }

  /// What one retention pass removed.
  public struct Removal: Sendable, Equatable {
    public var expired = 0
    public var pruned = 0
    public var bytesFreed = 0
  }

  /// Serialises retention for the rest of the transaction.
  private func lock(_ tx: Transaction) throws(DatabaseError) {
    try tx.query("SELECT pg_advisory_xact_lock(hashtext('mowdeck.notification_images'))")
  }

  /// Stores a captured JPEG or a failure marker for `imageID`, then enforces retention.
  /// Call last in the transaction that completes the reservation: the lock is held until
  /// its commit.
  public func insert(
    imageID: UUID, eventID: UUID, jpeg: [UInt8]?, failureReason: String?, tx: Transaction
  ) throws(DatabaseError) -> Removal {
    try insertWithoutRetention(
      imageID: imageID, eventID: eventID, jpeg: jpeg, failureReason: failureReason, tx: tx)
    return try enforceRetention(tx)
  }

  /// Stores a row without enforcing retention, for a transaction that stores several and
  /// then calls `enforceRetention` once, last, before its commit.
  public func insertWithoutRetention(
    imageID: UUID, eventID: UUID, jpeg: [UInt8]?, failureReason: String?, tx: Transaction
  ) throws(DatabaseError) {
    let lifetime = jpeg == nil ? limits.failedRetentionSeconds : limits.retentionSeconds
    try tx.query(
      """
      INSERT INTO notification_images (image_id, event_id, state, jpeg, byte_size,
                                       failure_reason, expires_at)
      VALUES (\(imageID), \(eventID), \(jpeg == nil ? "failed" : "captured"),
              \(jpeg.map(Bytes.init)), \(jpeg?.count ?? 0), \(failureReason),
              now() + make_interval(secs => \(lifetime)))
      ON CONFLICT (image_id) DO NOTHING
      """)
  }

  /// Removes expired rows and photos beyond the newest `keep`, with an event for each
  /// (`image.expired`, `image.pruned`, correlated to the row's alarm). Takes the lock.
  ///
  /// Only photos with bytes count towards `keep` (docs/interfaces.md#tables): failure markers
  /// go by their own short expiry alone, so a storm of failed captures never pushes a real
  /// photo out. The markers a storm leaves are bounded by the reservations of their hour.
  public func enforceRetention(_ tx: Transaction) throws(DatabaseError) -> Removal {
    try lock(tx)
    let rows = try tx.query(
      """
      WITH expired AS (
        DELETE FROM notification_images WHERE expires_at <= now()
        RETURNING image_id, event_id, state, byte_size, 'expired' AS why
      ), beyond AS (
        DELETE FROM notification_images WHERE image_id IN (
          SELECT image_id FROM notification_images
          WHERE state = 'captured' AND expires_at > now()
          ORDER BY created_at DESC, image_id OFFSET \(limits.keep))
        RETURNING image_id, event_id, state, byte_size, 'pruned' AS why
      )
      SELECT * FROM expired UNION ALL SELECT * FROM beyond
      """)
    var removal = Removal()
    var events: [NewEvent] = []
    for row in rows {
      let why = try row.string("why")
      let bytes = try row.int("byte_size")
      removal.bytesFreed += bytes
      let imageID = try row.uuid("image_id")
      let state = try row.string("state")
      let alarm = try row.uuid("event_id")
      if why == "expired" {
        removal.expired += 1
        events.append(
          NewEvent(ImageExpired(imageID: imageID, state: state, bytes: bytes), correlationID: alarm)
        )
      } else {
        removal.pruned += 1
        events.append(
          NewEvent(ImagePruned(imageID: imageID, state: state, bytes: bytes), correlationID: alarm))
      }
    }
    try eventLog.append(events, in: tx)
    return removal
  }
}
