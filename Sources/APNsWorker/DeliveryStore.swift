import Events
import Foundation

/// The APNs stage's reads and writes: claiming due deliveries with a lease, and ending each
/// attempt in one transaction fenced by the lease token (ADR 0009).
struct DeliveryStore: Sendable {
  let pool: DatabasePool
  /// Longer than a request can take (10 s timeout): a delivery whose worker died is sent
  /// again after this, which the collapse id makes harmless on the phone.
  let leaseSeconds: Int
  private let eventLog = EventLog()

  func claim(limit: Int) async throws -> [ClaimedDelivery] {
    let lease = leaseSeconds
    return try await pool.withTransaction { tx in
      try tx.query(
        """
        WITH due AS (
          SELECT delivery_id FROM deliveries
          WHERE state = 'queued' AND next_attempt_at <= now()
            AND (lease_expires_at IS NULL OR lease_expires_at < now())
          ORDER BY next_attempt_at
          LIMIT \(limit)
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE deliveries d
          SET lease_token = nextval('lease_tokens'),
              lease_expires_at = now() + make_interval(secs => \(lease)),
              attempts = d.attempts + 1
          FROM due WHERE d.delivery_id = due.delivery_id
          RETURNING d.delivery_id, d.notification_id, d.device_id, d.lease_token, d.attempts,
                    d.created_at
        )
        SELECT c.*, v.token, v.environment, v.active, v.registered_at, n.image_id, n.event_id,
               a.kind, a.mower_name, a.reason
        FROM claimed c
        JOIN devices v ON v.device_id = c.device_id
        JOIN notifications n ON n.notification_id = c.notification_id
        JOIN alarms a ON a.event_id = n.event_id
        """
      ).map { try ClaimedDelivery(row: $0) }
    }
  }

  enum Outcome: Sendable {
    case sent(apnsID: String?, status: Int, latencyMs: Int, hasImage: Bool)
    case retry(status: Int?, reason: String, afterSeconds: Double)
    case failed(status: Int?, reason: String, deactivateDevice: Bool, apnsTimestamp: Int64?)
  }

  /// Records the attempt's outcome; false when the lease was lost meanwhile (another worker
  /// holds the delivery now) and nothing was written.
  @discardableResult
  func finish(_ delivery: ClaimedDelivery, _ outcome: Outcome) async throws -> Bool {
    let eventLog = eventLog
    return try await pool.withTransaction { tx in
      let common: [String: any Sendable] = [
        "delivery_id": delivery.deliveryID, "notification_id": delivery.notificationID,
        "device_id": delivery.deviceID, "token_prefix": delivery.tokenPrefix,
        "environment": delivery.environment, "attempt": delivery.attempt,
      ]
      var events: [NewEvent] = []
      // The new state ('queued' again for a retry) and when the next attempt is due.
      let state: String
      var retryAfter = 0.0
      switch outcome {
      case .sent(let apnsID, let status, let latency, let hasImage):
        state = "sent"
        events.append(
          NewEvent(
            .deliverySent, correlationID: delivery.eventID,
            data: common.merging(
              ["apns_id": apnsID, "status": status, "latency_ms": latency, "has_image": hasImage]
            ) { $1 }))
      case .retry(let status, let reason, let after):
        state = "queued"
        retryAfter = after
        events.append(
          NewEvent(
            .deliveryRetryScheduled, correlationID: delivery.eventID,
            data: common.merging(
              ["status": status, "reason": reason, "retry_in_ms": Int(after * 1000)]) { $1 }))
      case .failed(let status, let reason, let deactivate, let timestamp):
        state = "failed"
        events.append(
          NewEvent(
            .deliveryFailed, correlationID: delivery.eventID,
            data: common.merging(
              ["status": status, "reason": reason, "apns_timestamp": timestamp]) { $1 }))
        if deactivate {
          events.append(
            NewEvent(
              .deviceDeactivated, correlationID: delivery.eventID,
              data: [
                "device_id": delivery.deviceID, "token_prefix": delivery.tokenPrefix,
                "reason": reason, "apns_timestamp": timestamp,
              ]))
        }
      }
      // Fenced: only the holder of the current lease writes the outcome.
      let ended = try tx.query(
        """
        UPDATE deliveries SET state = \(state), lease_token = NULL, lease_expires_at = NULL,
          finished_at = CASE WHEN \(state) = 'queued' THEN NULL ELSE now() END,
          next_attempt_at = now() + make_interval(secs => \(retryAfter))
        WHERE delivery_id = \(delivery.deliveryID) AND lease_token = \(delivery.leaseToken)
          AND state = 'queued'
        RETURNING delivery_id
        """)
      guard !ended.isEmpty else { return false }
      if case .failed(_, _, true, _) = outcome {
        let deactivated = try tx.query(
          """
          UPDATE devices SET active = false, deactivated_at = now()
          WHERE device_id = \(delivery.deviceID) AND active RETURNING device_id
          """)
        // Already inactive (another delivery got there first): one event is enough.
        if deactivated.isEmpty { events.removeAll { $0.type == .deviceDeactivated } }
      }
      try eventLog.append(events, in: tx)
      return true
    }
  }
}
