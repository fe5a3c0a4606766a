import Events
import FoundationEssentials
import Infrastructure

/// The APNs stage's reads and writes: claiming due deliveries with a lease, and ending
/// attempts, each fenced by its lease token, several to a transaction (ADR 0009, 0014). The
/// claim, the waiting count and the fenced end are every platform's (`DeliveryLeases`,
/// `LeaseEnd`); what is APNs's own is its delivery row and its dead-token rule.
struct DeliveryStore: OutcomeStore {
  let pool: DatabasePool
  /// Longer than a request can take (10 s timeout): a delivery whose worker died is sent
  /// again after this, which the collapse id makes harmless on the phone.
  let leaseSeconds: Int
  private let eventLog = EventLog()

  var leases: DeliveryLeases { DeliveryLeases(pool: pool, leaseSeconds: leaseSeconds) }

  func claim(limit: Int) async throws -> [ClaimedDelivery] {
    try await leases.claim(platform: .apns, limit: limit).map { try ClaimedDelivery(row: $0) }
  }

  /// What waits for the APNs stage: deliveries due and held by nobody (any worker could
  /// take them now), and how long the oldest due delivery has waited since it was queued.
  func waiting() async throws -> (claimable: Int, oldestAgeSeconds: Double) {
    try await leases.waiting(platform: .apns)
  }

  /// Extends to the full lease the handed-off deliveries of these lease tokens that are
  /// still queued: their pushes outlived a moment, and their first lease is short (ADR 0016).
  func renew(handoffLeases tokens: [Int64]) async throws {
    guard !tokens.isEmpty else { return }
    try await pool.query(
      """
      UPDATE deliveries SET lease_expires_at = now() + make_interval(secs => \(leaseSeconds))
      WHERE state = 'queued'
        AND lease_token = ANY(\(PostgresArray(tokens.map { String($0) }))::bigint[])
      """)
  }

  enum Outcome: DeliveryOutcome {
    case sent(apnsID: String?, status: Int, latencyMs: Int, hasImage: Bool)
    case retry(status: Int?, reason: String, afterSeconds: Double)
    case failed(status: Int?, reason: String, deactivateDevice: Bool, apnsTimestamp: Int64?)
  }

  /// Records the outcomes of several attempts in one transaction (the `OutcomeWriter`
  /// groups them). Each is fenced by its own lease token: the answer says, per item, whether
  /// it was written (false: the lease was lost meanwhile and another worker holds the
  /// delivery now, so nothing of that attempt is recorded).
  func finish(_ items: [(delivery: ClaimedDelivery, outcome: Outcome)]) async throws -> [Bool] {
    guard !items.isEmpty else { return [] }
    let eventLog = eventLog
    return try await pool.withTransaction { tx in
      let ended = try DeliveryLeases.end(items, in: tx)
      // Dead tokens. A 410's timestamp says when the token stopped being valid; a device
      // registered again after it (the app reinstalled, perhaps while this push was in
      // flight) keeps its token. So `registered_at` is checked in the statement that
      // switches the device off, not read before it. One `device.deactivated` per device
      // actually switched off here, for the outcome that decided it.
      let deciding = Self.deactivations(items, ended: ended)
      var switchedOff = Set<UUID>()
      if !deciding.isEmpty {
        let devices = Array(deciding.keys)
        let timestamps = devices.map { items[deciding[$0]!].outcome.apnsTimestamp.map(String.init) }
        switchedOff = try Set(
          tx.query(
            """
            UPDATE devices v SET active = false, deactivated_at = now()
            FROM unnest(\(PostgresArray(devices))::uuid[], \(PostgresArray(timestamps))::bigint[])
              AS u(device_id, apns_timestamp)
            WHERE v.device_id = u.device_id AND v.active
              AND (u.apns_timestamp IS NULL
                OR extract(epoch FROM v.registered_at) * 1000 < u.apns_timestamp)
            RETURNING v.device_id
            """
          ).map { try $0.uuid("device_id") })
      }
      try eventLog.append(
        DeliveryLeases.events(
          items, ended: ended, deciding: deciding, switchedOff: switchedOff),
        in: tx)
      return items.indices.map { ended.contains($0) }
    }
  }
}

extension DeliveryStore {
  /// Per device, the written outcome that would switch it off in the widest case: one
  /// without a timestamp (BadDeviceToken) before any with one, else the latest timestamp
  /// (another delivery of the device may carry an older one in the same group).
  static func deactivations(
    _ items: [(delivery: ClaimedDelivery, outcome: Outcome)], ended: Set<Int>
  ) -> [UUID: Int] {
    var deciding: [UUID: Int] = [:]
    for index in items.indices where ended.contains(index) && items[index].outcome.deactivates {
      let device = items[index].delivery.deviceID
      guard let current = deciding[device] else {
        deciding[device] = index
        continue
      }
      let (new, old) = (items[index].outcome.apnsTimestamp, items[current].outcome.apnsTimestamp)
      if let old, new.map({ $0 > old }) ?? true { deciding[device] = index }
    }
    return deciding
  }
}

extension DeliveryStore.Outcome {
  /// The delivery's state after this attempt: 'queued' again for a retry.
  var state: String {
    switch self {
    case .sent: "sent"
    case .retry: "queued"
    case .failed: "failed"
    }
  }

  /// Seconds until the next attempt is due (a retry only).
  var retryAfter: Double {
    if case .retry(_, _, let after) = self { return after }
    return 0
  }

  var deactivates: Bool {
    if case .failed(_, _, true, _) = self { return true }
    return false
  }

  /// When APNs says the token stopped being valid (milliseconds since 1970), if it said.
  var apnsTimestamp: Int64? {
    if case .failed(_, _, _, let timestamp) = self { return timestamp }
    return nil
  }

  /// The fact this attempt adds to the log.
  func event(for delivery: ClaimedDelivery) -> NewEvent {
    let attempt = delivery.deliveryAttempt
    switch self {
    case .sent(let apnsID, let status, let latency, let hasImage):
      return NewEvent(
        DeliverySent(
          attempt, apnsID: apnsID, status: status, latencyMilliseconds: latency,
          hasImage: hasImage),
        correlationID: delivery.eventID)
    case .retry(let status, let reason, let after):
      return NewEvent(
        DeliveryRetryScheduled(
          attempt, status: status, reason: reason, retryInMilliseconds: Int(after * 1000)),
        correlationID: delivery.eventID)
    case .failed(let status, let reason, _, let timestamp):
      return NewEvent(
        DeliveryFailed(attempt, status: status, reason: reason, apnsTimestamp: timestamp),
        correlationID: delivery.eventID)
    }
  }

  /// The fact that the device's token is dead; nil unless this outcome deactivates it.
  func deactivationEvent(for delivery: ClaimedDelivery) -> NewEvent? {
    guard case .failed(_, let reason, true, let timestamp) = self else { return nil }
    return NewEvent(
      DeviceDeactivated(
        deviceID: delivery.deviceID, tokenPrefix: delivery.tokenPrefix, reason: reason,
        apnsTimestamp: timestamp),
      correlationID: delivery.eventID)
  }
}
