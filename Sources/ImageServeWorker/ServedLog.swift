import Events
import FoundationEssentials
import Infrastructure

/// Writes `image.served` for the first successful fetch of each notification, exactly once
/// however many fetches race: under a transaction-scoped advisory lock keyed by the
/// notification, the check and the insert see every earlier commit (each statement of a
/// READ COMMITTED transaction takes its snapshot after the lock was granted).
struct ServedLog: Sendable {
  let pool: DatabasePool

  /// Returns true when this call wrote the event.
  @discardableResult
  func recordFirst(_ record: PhotoRecord, route: String, bytes: Int) async throws -> Bool {
    let notification = record.notificationID.uuidString.lowercased()
    let event = NewEvent(
      ImageServed(
        notificationID: record.notificationID, imageID: record.imageID, bytes: bytes, route: route),
      correlationID: record.eventID)
    return try await pool.withTransaction { tx in
      try tx.query(
        "SELECT pg_advisory_xact_lock(hashtextextended('mowdeck.image.served.' || \(notification), 0))"
      )
      let seen = try tx.query(
        """
        SELECT EXISTS (SELECT 1 FROM events
                       WHERE correlation_id = \(record.eventID) AND type = 'image.served'
                         AND data->>'notification_id' = \(notification)) AS seen
        """)[0].bool("seen")
      guard !seen else { return false }
      try EventLog().append([event], in: tx)
      return true
    }
  }
}
