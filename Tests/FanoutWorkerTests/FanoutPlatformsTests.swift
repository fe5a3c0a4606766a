import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import FanoutWorker

/// One recipient with an iPhone and two browsers: the fan-out queues a delivery for each
/// device in the decision's transaction, hands only the iPhone's to the APNs worker (leased),
/// and leaves the browsers' for their own worker's claim.
@Suite struct FanoutPlatformsTests {
  @Test func anIPhoneAndTwoBrowsersGetADeliveryEachAndOnlyTheIPhonesIsHandedOff() async throws {
    var fixture = try await FanoutStoreTests.Fixture()
    let directory = Directory(pool: fixture.db.pool)
    let key = Base64URL.encode([4] + [UInt8](repeating: 7, count: 64))
    let secret = Base64URL.encode([UInt8](repeating: 9, count: 16))
    var browsers: [UUID] = []
    for endpoint in [
      "https://fcm.googleapis.com/fcm/send/chrome", "https://web.push.apple.com/safari",
    ] {
      browsers.append(
        try await directory.addDevice(
          userID: "u-0",
          address: try .checkedWebPush(
            endpoint: endpoint, p256dh: key, auth: secret,
            allowedHosts: Configuration.defaultWebPushHosts)))
    }
    let id = UUID()
    let outcome = try await fixture.send("mower_lifted", after: 0, id: id)
    #expect(outcome.kind == .pushed)
    let handoff = try #require(outcome.handoff)
    #expect(handoff.deliveries.count == 1)
    #expect(handoff.deliveries[0].token == String(repeating: "0", count: 64))

    let rows = try await fixture.db.pool.query(
      """
      SELECT device_id, platform, attempts, lease_token IS NOT NULL AS leased FROM deliveries
      ORDER BY platform, device_id
      """)
    #expect(try rows.map { try $0.string("platform") } == ["apns", "webpush", "webpush"])
    #expect(try rows.map { try $0.int("attempts") } == [1, 0, 0])
    #expect(try rows.map { try $0.bool("leased") } == [true, false, false])
    #expect(try Set(rows.dropFirst().map { try $0.uuid("device_id") }) == Set(browsers))

    let queued = try await EventLog().story(of: id, pool: fixture.db.pool)
      .filter { $0.type == "delivery.queued" }
      .map { try $0.decode(DeliveryQueued.self) }
    #expect(
      queued.compactMap(\.platform).sorted { $0.rawValue < $1.rawValue }
        == [.apns, .webpush, .webpush])
    #expect(queued.filter { $0.platform == .webpush }.allSatisfy { $0.environment == nil })
    #expect(queued.first { $0.platform == .apns }?.environment == "production")

    // The APNs worker's release gives back only what it was handed.
    try await fixture.store.release(handoff)
    #expect(
      try await fixture.db.count("SELECT count(*) AS n FROM deliveries WHERE lease_token IS NULL")
        == 3)
  }
}
