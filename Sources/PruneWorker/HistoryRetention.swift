import Events
import FoundationEssentials
import Infrastructure

/// Removes the pipeline's bookkeeping of old alarms in bounded batches, as `EventRetention`
/// does for the events (ADR 0018): each alarm row goes with its inbox items
/// (`notifications`), their deliveries and its photo reservation; handled-message rows
/// (`ingress_messages`) go on their own. Each batch is one short transaction.
public struct HistoryRetention: Sendable {
  public let pool: DatabasePool
  public let maximumAgeSeconds: Int
  /// Alarms per batch: each is about eight rows (itself, three inbox items and deliveries,
  /// a reservation), so a tenth of the events' batch size makes a batch of similar weight.
  public let alarmsPerBatch: Int
  public let messagesPerBatch: Int

  /// The youngest age ever removed: a day beyond the stream's own, so a message JetStream
  /// can still redeliver always finds the rows that make it a no-op.
  public static let minimumAgeSeconds = Int(JetStream.streamMaxAgeSeconds) + 86_400

  /// `maximumAgeSeconds` below the minimum is raised to it; `batchSize` rows per batch
  /// (`MOWDECK_PRUNE_BATCH_SIZE`, as for the events).
  public init(pool: DatabasePool, maximumAgeSeconds: Int, batchSize: Int) {
    self.pool = pool
    self.maximumAgeSeconds = max(maximumAgeSeconds, Self.minimumAgeSeconds)
    alarmsPerBatch = max(1, batchSize / 10)
    messagesPerBatch = batchSize
  }

  /// What one alarm batch removed.
  public struct Removal: Sendable, Equatable {
    public var alarms: Int
    public var inboxItems: Int
    /// Deliveries still queued and photo reservations still pending: work no worker did
    /// while it could matter, removed with its alarm.
    public var unfinished: Int

    public init(alarms: Int, inboxItems: Int, unfinished: Int = 0) {
      self.alarms = alarms
      self.inboxItems = inboxItems
      self.unfinished = unfinished
    }
  }

  /// Deletes one batch of old alarms with everything that refers to them.
  ///
  /// Work still unfinished at this age can no longer succeed: delivery retries end when the
  /// notification is 30 minutes old (ADR 0009) and a photo is useful for 20 s. It goes with
  /// its alarm and is counted, rather than keeping the alarm (and every later batch's scan
  /// over it) for as long as no worker runs.
  public func pruneAlarmBatch() async throws -> Removal {
    // One statement. The deliveries go first, by index from the inbox items being deleted,
    // so that their states can be counted (the cascade then finds nothing left); the inbox
    // items and the reservation go before the alarm they refer to. Each DELETE looks its
    // rows up by index from the batch's ids (`= ANY(ARRAY(...))`): joined to the CTE
    // instead, the planner read whole tables for every batch.
    let rows = try await pool.query(
      """
      WITH doomed AS (
        SELECT event_id FROM alarms
        WHERE received_at < now() - make_interval(secs => \(maximumAgeSeconds))
        ORDER BY received_at
        LIMIT \(alarmsPerBatch)
        FOR UPDATE SKIP LOCKED
      ), reservations AS (
        DELETE FROM photo_reservations WHERE event_id = ANY(ARRAY(SELECT event_id FROM doomed))
        RETURNING state
      ), inbox AS (
        DELETE FROM notifications WHERE event_id = ANY(ARRAY(SELECT event_id FROM doomed))
        RETURNING notification_id
      ), outbox AS (
        DELETE FROM deliveries
        WHERE notification_id = ANY(ARRAY(SELECT notification_id FROM inbox))
        RETURNING state
      ), gone AS (
        DELETE FROM alarms WHERE event_id = ANY(ARRAY(SELECT event_id FROM doomed)) RETURNING 1
      )
      SELECT (SELECT count(*) FROM gone) AS alarms, (SELECT count(*) FROM inbox) AS items,
        (SELECT count(*) FROM outbox WHERE state = 'queued')
          + (SELECT count(*) FROM reservations WHERE state = 'pending') AS unfinished
      """)
    return Removal(
      alarms: try rows[0].int("alarms"), inboxItems: try rows[0].int("items"),
      unfinished: try rows[0].int("unfinished"))
  }

  /// Deletes one batch of old handled-message rows; returns how many went.
  public func pruneIngressBatch() async throws -> Int {
    let rows = try await pool.query(
      """
      WITH doomed AS (
        SELECT correlation_id FROM ingress_messages
        WHERE handled_at < now() - make_interval(secs => \(maximumAgeSeconds))
        ORDER BY handled_at
        LIMIT \(messagesPerBatch)
        FOR UPDATE SKIP LOCKED
      ), deleted AS (
        DELETE FROM ingress_messages m USING doomed
        WHERE m.correlation_id = doomed.correlation_id
        RETURNING 1
      )
      SELECT count(*) AS n FROM deleted
      """)
    return try rows[0].int("n")
  }
}
