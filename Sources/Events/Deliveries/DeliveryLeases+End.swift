import FoundationEssentials
import Infrastructure

/// A delivery held under a lease: what fences the writing of its attempt's outcome, and the
/// device that outcome may switch off.
public protocol LeasedDelivery: Sendable {
  var deliveryID: UUID { get }
  var leaseToken: Int64 { get }
  var deviceID: UUID { get }
}

/// What an attempt's outcome does to its delivery's row, and the facts it adds to the log.
public protocol DeliveryOutcome: Sendable {
  associatedtype Delivery: LeasedDelivery

  /// The delivery's state after the attempt: 'queued' again for a retry.
  var state: String { get }
  /// Seconds until the next attempt is due (a retry only).
  var retryAfter: Double { get }
  /// `delivery.sent`, `delivery.retry_scheduled` or `delivery.failed`.
  func event(for delivery: Delivery) -> NewEvent
  /// `device.deactivated`; nil unless this outcome switches the device off.
  func deactivationEvent(for delivery: Delivery) -> NewEvent?
}

extension DeliveryLeases {
  /// Ends several attempts in one UPDATE inside the caller's transaction, each fenced by its
  /// own lease token. Returns the indices of those written; the others' leases were lost
  /// meanwhile (another worker holds the delivery now), so nothing of them may be recorded.
  public static func end<Outcome: DeliveryOutcome>(
    _ items: [(delivery: Outcome.Delivery, outcome: Outcome)], in tx: Transaction
  ) throws(DatabaseError) -> Set<Int> {
    guard !items.isEmpty else { return [] }
    let rows = try tx.query(
      """
      UPDATE deliveries d SET state = u.state, lease_token = NULL, lease_expires_at = NULL,
        finished_at = CASE WHEN u.state = 'queued' THEN NULL ELSE now() END,
        next_attempt_at = now() + make_interval(secs => u.retry_after)
      FROM unnest(\(PostgresArray(items.map(\.delivery.deliveryID)))::uuid[],
                  \(PostgresArray(items.map { String($0.delivery.leaseToken) }))::bigint[],
                  \(PostgresArray(items.map(\.outcome.state)))::text[],
                  \(PostgresArray(items.map { String($0.outcome.retryAfter) }))::float8[])
        WITH ORDINALITY AS u(delivery_id, lease_token, state, retry_after, item)
      WHERE d.delivery_id = u.delivery_id AND d.lease_token = u.lease_token
        AND d.state = 'queued'
      RETURNING u.item
      """)
    var written = Set<Int>()
    for row in rows { written.insert(try row.int("item") - 1) }
    return written
  }

  /// The facts of a group, in its order: each written attempt's event and, after the
  /// attempt that decided it (`deciding`, per device), one `device.deactivated` per device
  /// actually switched off, however many of the group's attempts said so.
  public static func events<Outcome: DeliveryOutcome>(
    _ items: [(delivery: Outcome.Delivery, outcome: Outcome)], ended: Set<Int>,
    deciding: [UUID: Int], switchedOff: Set<UUID>
  ) -> [NewEvent] {
    var events: [NewEvent] = []
    for index in items.indices where ended.contains(index) {
      let (delivery, outcome) = items[index]
      events.append(outcome.event(for: delivery))
      if deciding[delivery.deviceID] == index, switchedOff.contains(delivery.deviceID),
        let deactivation = outcome.deactivationEvent(for: delivery)
      {
        events.append(deactivation)
      }
    }
    return events
  }
}
