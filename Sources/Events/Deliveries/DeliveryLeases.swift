import FoundationEssentials
import Infrastructure

/// The leased claim, the waiting count and the fenced end that every delivery stage shares,
/// whatever its platform (ADR 0009, 0014, 0031): each stage differs only in the platform it
/// names and in what it reads of a claimed row.
public struct DeliveryLeases: Sendable {
  public let pool: DatabasePool
  /// Longer than a request can take: a delivery whose worker died is sent again after this,
  /// which each platform's collapse id, `Topic` or tag makes harmless on the device.
  public let leaseSeconds: Int

  public init(pool: DatabasePool, leaseSeconds: Int) {
    self.pool = pool
    self.leaseSeconds = leaseSeconds
  }

  /// Leases up to `limit` due deliveries of `platform` that nobody holds, in one statement
  /// (atomic on its own: no BEGIN and COMMIT round trips). Each row holds the delivery, its
  /// device's address and flags, and its alarm's text: every platform's columns, so that one
  /// statement serves all (the others' are null).
  public func claim(platform: DevicePlatform, limit: Int) async throws -> [Row] {
    try await pool.query(
      """
      WITH due AS (
        SELECT delivery_id FROM deliveries
        WHERE state = 'queued' AND platform = \(platform.rawValue) AND next_attempt_at <= now()
          AND (lease_expires_at IS NULL OR lease_expires_at < now())
          AND \(fragment: Self.notHeldBack)
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
      SELECT c.*, v.token, v.environment, v.webpush_p256dh, v.webpush_auth, v.active,
             v.registered_at, n.image_id, n.event_id, a.kind, a.alarm_class, a.mower_name,
             a.reason
      FROM claimed c
      JOIN devices v ON v.device_id = c.device_id
      JOIN notifications n ON n.notification_id = c.notification_id
      JOIN alarms a ON a.event_id = n.event_id
      """)
  }

  /// A follow-up waits until its alarm's own message has ended: sent after it, the photo
  /// replaces the text in place; sent before, the text arriving later (after a retry) would
  /// replace the photo. Held back, it is not waiting for the stage either.
  static let notHeldBack: SQL = """
    (NOT deliveries.followup OR NOT EXISTS (
      SELECT 1 FROM deliveries first
      WHERE first.notification_id = deliveries.notification_id
        AND first.device_id = deliveries.device_id AND NOT first.followup
        AND first.state = 'queued'))
    """

  /// What waits for `platform`'s stage: deliveries due and held by nobody (any worker could
  /// take them now), and how long the oldest due delivery has waited since it was queued.
  public func waiting(platform: DevicePlatform) async throws
    -> (claimable: Int, oldestAgeSeconds: Double)
  {
    let row = try await pool.query(
      """
      SELECT count(*) FILTER (WHERE lease_expires_at IS NULL OR lease_expires_at < now())
               AS claimable,
             coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest
      FROM deliveries
      WHERE state = 'queued' AND platform = \(platform.rawValue) AND next_attempt_at <= now()
        AND \(fragment: Self.notHeldBack)
      """)[0]
    return (try row.int("claimable"), try row.optionalDouble("oldest") ?? 0)
  }
}

extension DeliveryLeases {
  /// Tells `progress` every two seconds, until cancelled, what waits for `platform`'s stage:
  /// the due deliveries nobody holds plus those this worker has in flight, and how long the
  /// oldest due one has waited (for the gauges and `/healthz`).
  public func keepMeasuring(
    platform: DevicePlatform, inFlight: InFlightCounter, into progress: StageProgress
  ) async {
    await progress.keepMeasuring(every: .seconds(2)) {
      let waiting = try await waiting(platform: platform)
      return StageProgress.Reading(
        count: waiting.claimable + (await inFlight.value),
        oldestAgeSeconds: waiting.oldestAgeSeconds)
    }
  }
}
