import Events
import FoundationEssentials
import Infrastructure

/// The Web Push stage's reads and writes: claiming due `webpush` deliveries with a lease, and
/// recording each attempt's outcome fenced by its lease token (ADR 0009), as the APNs stage
/// does for its own platform.
struct WebPushStore: Sendable {
  let pool: DatabasePool
  /// Longer than a request can take (10 s timeout): a delivery whose worker died is sent
  /// again after this, which its `Topic` makes harmless in the browser.
  let leaseSeconds: Int
  private let eventLog = EventLog()

  init(pool: DatabasePool, leaseSeconds: Int) {
    self.pool = pool
    self.leaseSeconds = leaseSeconds
  }

  func claim(limit: Int) async throws -> [WebPushDelivery] {
    try await pool.query(
      """
      WITH due AS (
        SELECT delivery_id FROM deliveries
        WHERE state = 'queued' AND platform = 'webpush' AND next_attempt_at <= now()
          AND (lease_expires_at IS NULL OR lease_expires_at < now())
        ORDER BY next_attempt_at
        LIMIT \(limit)
        FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE deliveries d
        SET lease_token = nextval('lease_tokens'),
            lease_expires_at = now() + make_interval(secs => \(leaseSeconds)),
            attempts = d.attempts + 1
        FROM due WHERE d.delivery_id = due.delivery_id
        RETURNING d.delivery_id, d.notification_id, d.device_id, d.lease_token, d.attempts,
                  d.created_at, d.followup
      )
      SELECT c.*, v.token, v.webpush_p256dh, v.webpush_auth, v.active, n.image_id, n.event_id,
             a.kind, a.alarm_class, a.mower_name, a.reason
      FROM claimed c
      JOIN devices v ON v.device_id = c.device_id
      JOIN notifications n ON n.notification_id = c.notification_id
      JOIN alarms a ON a.event_id = n.event_id
      """
    ).map { try WebPushDelivery(row: $0) }
  }

  /// What waits for the Web Push stage: due deliveries nobody holds, and how long the
  /// oldest has waited since it was queued.
  func waiting() async throws -> (claimable: Int, oldestAgeSeconds: Double) {
    let row = try await pool.query(
      """
      SELECT count(*) FILTER (WHERE lease_expires_at IS NULL OR lease_expires_at < now())
               AS claimable,
             coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest
      FROM deliveries
      WHERE state = 'queued' AND platform = 'webpush' AND next_attempt_at <= now()
      """)[0]
    return (try row.int("claimable"), try row.optionalDouble("oldest") ?? 0)
  }

  /// Records one attempt's outcome; false when the lease was lost meanwhile (another worker
  /// holds the delivery now) and nothing was written. A 404 or 410 switches the device off
  /// in the same transaction, with its `device.deactivated`.
  func finish(_ delivery: WebPushDelivery, _ outcome: WebPushOutcome) async throws -> Bool {
    let eventLog = eventLog
    return try await pool.withTransaction { tx in
      let ended = try tx.query(
        """
        UPDATE deliveries SET state = \(outcome.state), lease_token = NULL,
          lease_expires_at = NULL,
          finished_at = CASE WHEN \(outcome.state) = 'queued' THEN NULL ELSE now() END,
          next_attempt_at = now() + make_interval(secs => \(outcome.retryAfter))
        WHERE delivery_id = \(delivery.deliveryID) AND lease_token = \(delivery.leaseToken)
          AND state = 'queued'
        RETURNING 1
        """)
      guard !ended.isEmpty else { return false }
      var events = [outcome.event(for: delivery)]
      if case .failed(_, let reason, true) = outcome {
        let switchedOff = try tx.query(
          """
          UPDATE devices SET active = false, deactivated_at = now()
          WHERE device_id = \(delivery.deviceID) AND active RETURNING 1
          """)
        if !switchedOff.isEmpty {
          events.append(
            NewEvent(
              DeviceDeactivated(
                deviceID: delivery.deviceID, tokenPrefix: delivery.tokenPrefix,
                platform: .webpush, reason: reason, apnsTimestamp: nil),
              correlationID: delivery.eventID))
        }
      }
      try eventLog.append(events, in: tx)
      return true
    }
  }
}
