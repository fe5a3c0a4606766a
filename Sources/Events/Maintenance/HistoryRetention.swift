import Foundation

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

  /// `maximumAgeSeconds` below the minimum is raised to it.
  public init(
    pool: DatabasePool, maximumAgeSeconds: Int, alarmsPerBatch: Int, messagesPerBatch: Int
  ) {
    self.pool = pool
    self.maximumAgeSeconds = max(maximumAgeSeconds, Self.minimumAgeSeconds)
    self.alarmsPerBatch = alarmsPerBatch
    self.messagesPerBatch = messagesPerBatch
  }

  /// What one alarm batch removed.
  public struct Removal: Sendable, Equatable {
    public var alarms: Int
    public var inboxItems: Int

    public init(alarms: Int, inboxItems: Int) {
      self.alarms = alarms
      self.inboxItems = inboxItems
    }
  }

  /// Deletes one batch of old alarms. An alarm whose work is unfinished stays, however old:
  /// a photo still pending, or a delivery still queued (no APNs worker has run since).
  public func pruneAlarmBatch() async throws -> Removal {
    // One statement: the inbox items and the reservation go before the alarm they refer
    // to; the deliveries follow their inbox items (ON DELETE CASCADE).
    // - The unfinished old alarms are gathered once per batch and probed by hash. A queued
    //   delivery is never due later than about 35 min after its alarm (retries end when the
    //   notification is 30 min old, ADR 0009), so those of old alarms lie at the start of
    //   the due index, read alone: a day of margin, and however long the queue of recent
    //   deliveries (an APNs outage), the batch never reads it. As a correlated NOT EXISTS, a
    //   plan made while nothing was queued rescanned all queued deliveries for each alarm.
    // - Each DELETE looks its rows up by index from the batch's ids (`= ANY(ARRAY(...))`):
    //   joined to the CTE instead, the planner read whole tables for every batch.
    let rows = try await pool.query(
      """
      WITH unfinished AS MATERIALIZED (
        SELECT n.event_id FROM deliveries d JOIN notifications n USING (notification_id)
        WHERE d.state = 'queued'
          AND d.next_attempt_at < now() - make_interval(secs => \(maximumAgeSeconds - 86_400))
        UNION ALL
        SELECT event_id FROM photo_reservations
        WHERE state = 'pending'
          AND created_at < now() - make_interval(secs => \(maximumAgeSeconds - 86_400))
      ), doomed AS (
        SELECT a.event_id FROM alarms a
        WHERE a.received_at < now() - make_interval(secs => \(maximumAgeSeconds))
          AND a.event_id NOT IN (SELECT event_id FROM unfinished)
        ORDER BY a.received_at
        LIMIT \(alarmsPerBatch)
        FOR UPDATE OF a SKIP LOCKED
      ), reservations AS (
        DELETE FROM photo_reservations WHERE event_id = ANY(ARRAY(SELECT event_id FROM doomed))
        RETURNING 1
      ), inbox AS (
        DELETE FROM notifications WHERE event_id = ANY(ARRAY(SELECT event_id FROM doomed))
        RETURNING 1
      ), gone AS (
        DELETE FROM alarms WHERE event_id = ANY(ARRAY(SELECT event_id FROM doomed)) RETURNING 1
      )
      SELECT (SELECT count(*) FROM gone) AS alarms, (SELECT count(*) FROM inbox) AS items
      """)
    return Removal(alarms: try rows[0].int("alarms"), inboxItems: try rows[0].int("items"))
  }

  /// Deletes one batch of old handled-message rows; returns how many went.
  public func pruneIngressBatch() async throws -> Int {
    let rows = try await pool.query(
      """
      WITH doomed AS (
        SELECT stream_seq FROM ingress_messages
        WHERE handled_at < now() - make_interval(secs => \(maximumAgeSeconds))
        ORDER BY handled_at
        LIMIT \(messagesPerBatch)
        FOR UPDATE SKIP LOCKED
      ), deleted AS (
        DELETE FROM ingress_messages m USING doomed WHERE m.stream_seq = doomed.stream_seq
        RETURNING 1
      )
      SELECT count(*) AS n FROM deleted
      """)
    return try rows[0].int("n")
  }
}
