import FoundationEssentials
import Infrastructure

/// The one way to append to and read from the `events` table.
public struct EventLog: Sendable {
  public init() {}

  /// Appends facts inside the caller's transaction, so they commit with the state they
  /// describe. All rows go in one statement, in the order given.
  public func append(_ events: [NewEvent], in tx: Transaction) throws(DatabaseError) {
    guard !events.isEmpty else { return }
    try tx.query(insertStatement(events))
  }

  /// The INSERT that appends `events`, for a caller that folds it into a larger statement
  /// (as the final statement after data-modifying CTEs) to save a round trip.
  public func insertStatement(_ events: [NewEvent]) -> SQL {
    """
    INSERT INTO events (type, correlation_id, causation_id, data)
    SELECT t, c, k, d::jsonb
    FROM unnest(\(PostgresArray(events.map(\.type.rawValue)))::text[],
                \(PostgresArray(events.map(\.correlationID)))::uuid[],
                \(PostgresArray(events.map(\.causationID)))::uuid[],
                \(PostgresArray(events.map(\.dataJSON)))::text[])
      WITH ORDINALITY AS e(t, c, k, d, n)
    ORDER BY n
    """
  }

  /// The whole story of one alarm, in order.
  public func story(of correlationID: UUID, pool: DatabasePool) async throws -> [RecordedEvent] {
    try await pool.query(
      """
      SELECT position, recorded_at, type, correlation_id, causation_id, data::text AS data
      FROM events WHERE correlation_id = \(correlationID) ORDER BY position
      """
    ).map { try RecordedEvent(row: $0) }
  }

  /// Events after `cursor`, in commit-safe order. Only rows of transactions older than every
  /// transaction still running are returned, so a transaction that commits late can never
  /// be skipped: its rows appear after the cursor once it has committed (ADR 0003).
  public func tail(after cursor: EventCursor, limit: Int, pool: DatabasePool) async throws
    -> (events: [RecordedEvent], cursor: EventCursor)
  {
    let rows = try await pool.query(
      """
      SELECT position, recorded_at, type, correlation_id, causation_id, data::text AS data,
             tx_id::text AS tx_id
      FROM events
      WHERE (tx_id, position) > (\(cursor.transactionID)::xid8, \(cursor.position)::bigint)
        AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY tx_id, position
      LIMIT \(limit)
      """)
    var next = cursor
    var events: [RecordedEvent] = []
    for row in rows {
      let event = try RecordedEvent(row: row)
      events.append(event)
      next = EventCursor(transactionID: try row.string("tx_id"), position: event.position)
    }
    return (events, next)
  }
}

extension EventLog {
  /// Records where a named reader stands, so that retention never removes events it has
  /// not read yet.
  public func save(_ cursor: EventCursor, reader: String, pool: DatabasePool) async throws {
    try await pool.query(
      """
      INSERT INTO event_cursors (reader, tx_id, position) VALUES (\(reader), \(cursor.transactionID)::xid8, \(cursor.position))
      ON CONFLICT (reader) DO UPDATE SET tx_id = EXCLUDED.tx_id, position = EXCLUDED.position,
        updated_at = now()
      """)
  }

  /// Where a named reader stood, or `.start`.
  public func cursor(of reader: String, pool: DatabasePool) async throws -> EventCursor {
    guard
      let row = try await pool.query(
        "SELECT tx_id::text AS tx_id, position FROM event_cursors WHERE reader = \(reader)"
      ).first
    else { return .start }
    return EventCursor(
      transactionID: try row.string("tx_id"), position: Int64(try row.int("position")))
  }
}

/// Where a tailing reader stands: the last (transaction id, position) it has seen.
public struct EventCursor: Sendable, Equatable {
  public let transactionID: String
  public let position: Int64

  public init(transactionID: String, position: Int64) {
    self.transactionID = transactionID
    self.position = position
  }

  public static let start = EventCursor(transactionID: "0", position: 0)
}
