import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// The channel stages' shared store against a real PostgreSQL: each platform claims only its
/// own deliveries, outcomes go several to a transaction, each fenced by its own lease, and a
/// gone address is switched off once, with its `device.deactivated`.
@Suite struct ChannelStoreTests {
  struct Seeded {
    let db: TestDatabase
    let store: ChannelStore
    let eventID: UUID
  }

  /// User u-1 with an iPhone, two browsers and an Android phone, and one pushed alarm queued
  /// to all four (and, with `followups`, the photo's follow-up to each non-APNs device).
  static func seeded(followups: Bool = false) async throws -> Seeded {
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
    try await directory.addDevice(userID: "u-1", address: try .checkedFCM(token: "fcm:token-1"))
    let eventID = UUID()
    try await db.pool.query(
      """
      WITH alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            mower_name, decision, photo, recipients)
        VALUES (\(eventID), 'm-1', 'mower_lifted', 'theft', now(), now(), 'Robbie', 'pushed',
                'none', 1)
        RETURNING event_id
      ), notification AS (
        INSERT INTO notifications (notification_id, event_id, user_id)
        SELECT gen_random_uuid(), event_id, 'u-1' FROM alarm RETURNING notification_id
      )
      INSERT INTO deliveries (notification_id, device_id, platform, followup)
      SELECT notification_id, device_id, platform, f FROM notification, devices,
             unnest(ARRAY[false, \(followups)]) AS f
      WHERE NOT f OR platform <> 'apns'
      ON CONFLICT DO NOTHING
      """)
    return Seeded(db: db, store: ChannelStore(pool: db.pool, leaseSeconds: 30), eventID: eventID)
  }

  func types(_ seeded: Seeded) async throws -> [String] {
    try await EventLog().story(of: seeded.eventID, pool: seeded.db.pool).map(\.type)
  }

  @Test func eachPlatformClaimsOnlyItsOwnDeliveries() async throws {
    let seeded = try await Self.seeded()
    let store = seeded.store
    #expect(try await store.waiting(platform: .webpush).claimable == 2)
    #expect(try await store.waiting(platform: .fcm).claimable == 1)
    let browsers = try await store.claim(platform: .webpush, limit: 10)
    #expect(Set(browsers.map(\.address)) == ["https://push.test/one", "https://push.test/two"])
    #expect(browsers.allSatisfy { $0.platform == .webpush && $0.webPushKeys != nil })
    #expect(browsers.allSatisfy { $0.kind == "mower_lifted" && $0.alarmClass == "theft" })
    #expect(browsers.allSatisfy { $0.mowerName == "Robbie" && !$0.followup && $0.attempt == 1 })
    #expect(try await store.claim(platform: .webpush, limit: 10).isEmpty)
    #expect(try await store.waiting(platform: .webpush).claimable == 0)
    // The Android phone's delivery waits for its own worker; the iPhone's is never a channel's.
    #expect(try await store.waiting(platform: .fcm).claimable == 1)
    let android = try await store.claim(platform: .fcm, limit: 10)
    #expect(android.map(\.address) == ["fcm:token-1"])
    #expect(android[0].platform == .fcm && android[0].webPushKeys == nil)
    #expect(
      try await seeded.db.count(
        "SELECT count(*) AS n FROM deliveries WHERE platform = 'apns' AND lease_token IS NULL")
        == 1)
  }

  @Test func aGroupOfOutcomesIsWrittenInOneTransaction() async throws {
    let seeded = try await Self.seeded()
    let browsers = try await seeded.store.claim(platform: .webpush, limit: 10)
    let android = try await seeded.store.claim(platform: .fcm, limit: 10)
    let written = try await seeded.store.finish([
      (browsers[0], .sent(status: 201, latencyMs: 4, hasImage: false)),
      (browsers[1], .failed(status: 413, reason: "payload_too_large", deactivateDevice: false)),
      (android[0], .retry(status: 503, reason: "push_service_error", afterSeconds: 0)),
    ])
    #expect(written == [true, true, true])
    let states = try await seeded.db.pool.query(
      "SELECT state FROM deliveries WHERE platform <> 'apns' ORDER BY state")
    #expect(try states.map { try $0.string("state") } == ["failed", "queued", "sent"])
    #expect(
      try await types(seeded) == ["delivery.sent", "delivery.failed", "delivery.retry_scheduled"])
    #expect(
      try await seeded.db.count(
        "SELECT count(DISTINCT tx_id) AS n FROM events WHERE type LIKE 'delivery.%'") == 1)
    let sent = try await EventLog().story(of: seeded.eventID, pool: seeded.db.pool)[0]
      .decode(DeliverySent.self)
    #expect(sent.platform == .webpush && sent.environment == nil && sent.apnsID == nil)
    #expect(sent.tokenPrefix == "push.test" && sent.followup == nil)
    // The retry is due again at once, as its next attempt.
    let again = try await seeded.store.claim(platform: .fcm, limit: 10)
    #expect(again.map(\.deliveryID) == [android[0].deliveryID] && again[0].attempt == 2)
  }

  @Test func aFollowUpWaitsUntilItsAlarmsOwnMessageHasEnded() async throws {
    let seeded = try await Self.seeded(followups: true)
    let store = seeded.store
    // Only the alarm's messages: each follow-up is held back, and not counted as waiting.
    #expect(try await store.waiting(platform: .webpush).claimable == 2)
    let first = try await store.claim(platform: .webpush, limit: 10)
    #expect(first.count == 2 && first.allSatisfy { !$0.followup })
    #expect(try await store.claim(platform: .webpush, limit: 10).isEmpty)
    // One browser's message is sent, the other's is to be retried: only the first browser's
    // follow-up may go; the second's waits for its retry to end.
    let retried = try await store.finish([
      (first[0], .sent(status: 201, latencyMs: 1, hasImage: false)),
      (first[1], .retry(status: 429, reason: "too_many_requests", afterSeconds: 60)),
    ])
    #expect(retried == [true, true])
    let followUps = try await store.claim(platform: .webpush, limit: 10)
    #expect(followUps.map(\.deviceID) == [first[0].deviceID] && followUps[0].followup)
    try await seeded.db.pool.query(
      """
      UPDATE deliveries SET state = 'failed', finished_at = now()
      WHERE delivery_id = \(first[1].deliveryID)
      """)
    let last = try await store.claim(platform: .webpush, limit: 10)
    #expect(last.map(\.deviceID) == [first[1].deviceID] && last[0].followup)
  }

  @Test func aLostLeaseWritesNothingOfThatItemOnly() async throws {
    let seeded = try await Self.seeded()
    let first = try await seeded.store.claim(platform: .webpush, limit: 10)
    // The lease of one delivery lapses and another worker claims it under a new token.
    try await seeded.db.pool.query(
      """
      UPDATE deliveries SET lease_expires_at = now() - interval '1 second'
      WHERE delivery_id = \(first[0].deliveryID)
      """)
    let taken = try await seeded.store.claim(platform: .webpush, limit: 10)
    #expect(taken.map(\.deliveryID) == [first[0].deliveryID])
    let sent = ChannelOutcome.sent(status: 201, latencyMs: 1, hasImage: false)
    #expect(try await seeded.store.finish([(first[0], sent), (first[1], sent)]) == [false, true])
    #expect(try await seeded.store.finish([(taken[0], sent), (first[1], sent)]) == [true, false])
    #expect(try await types(seeded) == ["delivery.sent", "delivery.sent"])
    let attempts = try await EventLog().story(of: seeded.eventID, pool: seeded.db.pool)
      .map { try $0.decode(DeliverySent.self).attempt }
    #expect(attempts.sorted() == [1, 2])
  }

  @Test func aGoneAddressIsSwitchedOffOnceWithItsEvent() async throws {
    let seeded = try await Self.seeded(followups: true)
    // The alarm's messages first, then (once they have ended) the follow-ups.
    let messages = try await seeded.store.claim(platform: .webpush, limit: 10)
    #expect(messages.count == 2)
    let gone = messages[0].deviceID
    func outcome(_ delivery: ChannelDelivery) -> ChannelOutcome {
      delivery.deviceID == gone
        ? .failed(status: 410, reason: "subscription_gone", deactivateDevice: true)
        : .sent(status: 201, latencyMs: 2, hasImage: delivery.followup)
    }
    var written = try await seeded.store.finish(messages.map { ($0, outcome($0)) })
    let followUps = try await seeded.store.claim(platform: .webpush, limit: 10)
    #expect(followUps.count == 2 && followUps.allSatisfy(\.followup))
    written += try await seeded.store.finish(followUps.map { ($0, outcome($0)) })
    #expect(written == [true, true, true, true])
    #expect(
      try await seeded.db.count(
        "SELECT count(*) AS n FROM devices WHERE NOT active AND deactivated_at IS NOT NULL") == 1)
    let events = try await EventLog().story(of: seeded.eventID, pool: seeded.db.pool)
    let deactivated = try events.filter { $0.type == "device.deactivated" }
      .map { try $0.decode(DeviceDeactivated.self) }
    #expect(deactivated.count == 1)
    #expect(deactivated.first?.deviceID == gone && deactivated.first?.platform == .webpush)
    #expect(deactivated.first?.reason == "subscription_gone")
    let failed = try events.filter { $0.type == "delivery.failed" }
      .map { try $0.decode(DeliveryFailed.self) }
    #expect(failed.count == 2 && failed.allSatisfy { $0.platform == .webpush })
    #expect(Set(failed.map(\.followup)) == [nil, true])
    // A later outcome for a device already off is written, but switches nothing again.
    let unregistered = ChannelOutcome.failed(
      status: 404, reason: "UNREGISTERED", deactivateDevice: true)
    for _ in 0..<2 {
      let android = try await seeded.store.claim(platform: .fcm, limit: 10)
      #expect(android.count == 1)
      #expect(try await seeded.store.finish(android.map { ($0, unregistered) }) == [true])
    }
    let all = try await EventLog().story(of: seeded.eventID, pool: seeded.db.pool)
    let switchedOff = try all.filter { $0.type == "device.deactivated" }
      .map { try $0.decode(DeviceDeactivated.self) }
    #expect(switchedOff.map(\.platform) == [.webpush, .fcm])
  }
}
