import FoundationEssentials
import Infrastructure

/// The reads and writes of the channel stages (Web Push, FCM, ntfy): claiming a platform's
/// due deliveries with a lease, and ending attempts several to a transaction, each fenced by
/// its own lease token (ADR 0009, 0014, 0031).
public struct ChannelStore: OutcomeStore {
  public let leases: DeliveryLeases
  private let eventLog = EventLog()

  public init(pool: DatabasePool, leaseSeconds: Int) {
    leases = DeliveryLeases(pool: pool, leaseSeconds: leaseSeconds)
  }

  public var pool: DatabasePool { leases.pool }

  public func claim(platform: DevicePlatform, limit: Int) async throws -> [ChannelDelivery] {
    try await leases.claim(platform: platform, limit: limit).map {
      try ChannelDelivery(row: $0, platform: platform)
    }
  }

  public func waiting(platform: DevicePlatform) async throws
    -> (claimable: Int, oldestAgeSeconds: Double)
  {
    try await leases.waiting(platform: platform)
  }

  /// Records the outcomes of several attempts in one transaction (the `OutcomeWriter`
  /// groups them). The answer says, per item, whether it was written (false: the lease was
  /// lost meanwhile, and nothing of that attempt is recorded). A device whose address is
  /// gone is switched off in the same transaction, with one `device.deactivated` however many
  /// of its deliveries said so.
  public func finish(_ items: [(delivery: ChannelDelivery, outcome: ChannelOutcome)])
    async throws -> [Bool]
  {
    guard !items.isEmpty else { return [] }
    let eventLog = eventLog
    return try await pool.withTransaction { tx in
      let ended = try DeliveryLeases.end(items, in: tx)
      // Per device, the first written outcome that switches it off decides its event.
      var deciding: [UUID: Int] = [:]
      for index in items.indices
      where ended.contains(index) && items[index].outcome.deactivatesDevice {
        if deciding[items[index].delivery.deviceID] == nil {
          deciding[items[index].delivery.deviceID] = index
        }
      }
      let switchedOff = try Self.switchOff(Array(deciding.keys), in: tx)
      try eventLog.append(
        DeliveryLeases.events(
          items, ended: ended, deciding: deciding, switchedOff: switchedOff),
        in: tx)
      return items.indices.map { ended.contains($0) }
    }
  }

  /// Switches these devices off; returns those that were still on (only they get an event).
  private static func switchOff(_ devices: [UUID], in tx: Transaction) throws(DatabaseError)
    -> Set<UUID>
  {
    guard !devices.isEmpty else { return [] }
    var switchedOff = Set<UUID>()
    for row in try tx.query(
      """
      UPDATE devices SET active = false, deactivated_at = now()
      WHERE device_id = ANY(\(PostgresArray(devices))::uuid[]) AND active
      RETURNING device_id
      """)
    {
      switchedOff.insert(try row.uuid("device_id"))
    }
    return switchedOff
  }
}
