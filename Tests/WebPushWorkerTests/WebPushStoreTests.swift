import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import WebPushWorker

/// The Web Push stage's claims and outcomes against a real PostgreSQL: only `webpush`
/// deliveries, each outcome fenced by its lease, and a gone subscription switched off once
/// with its `device.deactivated`.
@Suite struct WebPushStoreTests {
  /// User u-1 with an iPhone and two browsers, and one pushed alarm queued to all three.
  static func seeded() async throws -> (TestDatabase, WebPushStore) {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u-1", name: "Owner")
    try await directory.grant(mowerID: "m-1", userID: "u-1")
    try await directory.addDevice(
      userID: "u-1", token: String(repeating: "a", count: 64), environment: "production")
    for endpoint in ["https://push.test/one", "https://push.test/two"] {
      try await directory.addDevice(
        userID: "u-1",
        address: try .checkedWebPush(
          endpoint: endpoint, p256dh: Base64URL.encode([4] + [UInt8](repeating: 7, count: 64)),
          auth: Base64URL.encode([UInt8](repeating: 9, count: 16)), allowedHosts: ["push.test"]))
    }
    try await db.pool.query(
      """
      WITH alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            mower_name, decision, photo, recipients)
        VALUES (gen_random_uuid(), 'm-1', 'mower_lifted', 'theft', now(), now(), 'Robbie',
                'pushed', 'none', 1)
        RETURNING event_id
      ), notification AS (
        INSERT INTO notifications (notification_id, event_id, user_id)
        SELECT gen_random_uuid(), event_id, 'u-1' FROM alarm RETURNING notification_id
      )
      INSERT INTO deliveries (notification_id, device_id, platform)
      SELECT notification_id, device_id, platform FROM notification, devices
      """)
    return (db, WebPushStore(pool: db.pool, leaseSeconds: 30))
  }

  @Test func onlyWebPushDeliveriesAreClaimedWithTheirSubscriptionAndText() async throws {
    let (db, store) = try await Self.seeded()
    #expect(try await store.waiting().claimable == 2)
    let claimed = try await store.claim(limit: 10)
    #expect(Set(claimed.map(\.endpoint)) == ["https://push.test/one", "https://push.test/two"])
    #expect(claimed.allSatisfy { $0.kind == "mower_lifted" && $0.alarmClass == "theft" })
    #expect(claimed.allSatisfy { $0.mowerName == "Robbie" && !$0.followup && $0.attempt == 1 })
    #expect(try await store.claim(limit: 10).isEmpty)
    #expect(try await store.waiting().claimable == 0)
    #expect(
      try await db.count("SELECT count(*) AS n FROM deliveries WHERE lease_token IS NULL") == 1)
  }

  @Test func outcomesAreFencedAndAGoneSubscriptionIsSwitchedOffOnce() async throws {
    let (db, store) = try await Self.seeded()
    let claimed = try await store.claim(limit: 10)
    #expect(
      try await store.finish(claimed[0], .sent(status: 201, latencyMs: 4, hasImage: false)))
    #expect(
      try await store.finish(
        claimed[1], .failed(status: 410, reason: "subscription_gone", deactivateDevice: true)))
    // The lease is spent: a second outcome for the same attempt writes nothing.
    #expect(
      try await !store.finish(claimed[0], .sent(status: 201, latencyMs: 4, hasImage: false)))
    let states = try await db.pool.query(
      "SELECT state FROM deliveries WHERE platform = 'webpush' ORDER BY state")
    #expect(try states.map { try $0.string("state") } == ["failed", "sent"])
    #expect(
      try await db.count(
        "SELECT count(*) AS n FROM devices WHERE platform = 'webpush' AND NOT active") == 1)
    let events = try await EventLog().story(of: claimed[0].eventID, pool: db.pool)
    #expect(events.map(\.type) == ["delivery.sent", "delivery.failed", "device.deactivated"])
    let sent = try events[0].decode(DeliverySent.self)
    #expect(sent.platform == .webpush && sent.environment == nil && sent.apnsID == nil)
    #expect(sent.tokenPrefix == "push.test")
    let deactivated = try events[2].decode(DeviceDeactivated.self)
    #expect(deactivated.platform == .webpush && deactivated.reason == "subscription_gone")
  }

  @Test func aRetryIsClaimedAgainWhenDue() async throws {
    let (_, store) = try await Self.seeded()
    let first = try #require(try await store.claim(limit: 1).first)
    #expect(
      try await store.finish(
        first, .retry(status: 429, reason: "too_many_requests", afterSeconds: 0)))
    let again = try await store.claim(limit: 10)
    #expect(again.contains { $0.deliveryID == first.deliveryID && $0.attempt == 2 })
  }
}
