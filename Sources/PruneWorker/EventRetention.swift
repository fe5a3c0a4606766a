import Events
import FoundationEssentials
import Infrastructure

/// Removes old events in bounded batches: each batch is its own short transaction, so the
/// writers never wait long on it, and nothing at or after the oldest saved reader cursor,
/// in the readers' (transaction, position) order, is removed (ADR 0011).
public struct EventRetention: Sendable {
  public let pool: DatabasePool
  public let maximumAgeSeconds: Int
  public let batchSize: Int

  public init(pool: DatabasePool, maximumAgeSeconds: Int, batchSize: Int) {
    self.pool = pool
    self.maximumAgeSeconds = maximumAgeSeconds
    self.batchSize = batchSize
  }

  /// Deletes one batch; returns how many events went (0 when nothing is due).
  public func pruneBatch() async throws -> Int {
    let rows = try await pool.query(
      """
      WITH doomed AS (
        SELECT position FROM events
        WHERE recorded_at < now() - make_interval(secs => \(maximumAgeSeconds))
          -- Readers move in (transaction, position) order, not by position alone: an
          -- event committed late has a low position but comes after a cursor that has
          -- already passed that position (ADR 0003). Only events before every cursor go.
          AND NOT EXISTS (
            SELECT 1 FROM event_cursors c
            WHERE (events.tx_id, events.position) >= (c.tx_id, c.position))
        ORDER BY position
        LIMIT \(batchSize)
        FOR UPDATE SKIP LOCKED
      ), deleted AS (
        DELETE FROM events e USING doomed WHERE e.position = doomed.position RETURNING 1
      )
      SELECT count(*) AS n FROM deleted
      """)
    return try rows[0].int("n")
  }
}
