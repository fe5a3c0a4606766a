import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import APNsWorker

/// The APNs worker claims, and counts as waiting, only APNs deliveries: a browser's
/// delivery queued beside an iPhone's is left for its own worker.
@Suite struct DeliveryStorePlatformTests {
  @Test func onlyAPNsDeliveriesAreClaimedOrCountedAsWaiting() async throws {
    let db = try await TestDatabase.make()
    let store = try await DeliveryStoreTests.queuedDeliveries(devices: 1, in: db)
    let browser = try await Directory(pool: db.pool).addDevice(
      userID: "u-1",
      address: try .checkedWebPush(
        endpoint: "https://fcm.googleapis.com/fcm/send/x",
        p256dh: Base64URL.encode([4] + [UInt8](repeating: 7, count: 64)),
        auth: Base64URL.encode([UInt8](repeating: 9, count: 16)),
        allowedHosts: Configuration.defaultWebPushHosts))
    // The queued delivery of a second alarm to each device, with the device's platform.
    try await DeliveryStoreTests.alarm(kind: "mower_lifted", alarmClass: "theft", in: db)
    try await db.pool.query(
      """
      UPDATE deliveries d SET platform = v.platform FROM devices v WHERE v.device_id = d.device_id
      """)
    #expect(
      try await db.count("SELECT count(*) AS n FROM deliveries WHERE device_id = \(browser)") == 1)
    #expect(try await store.waiting().claimable == 2)
    let claimed = try await store.claim(limit: 10)
    #expect(claimed.count == 2)
    #expect(
      claimed.allSatisfy { $0.token == String(repeating: "ab", count: 24) + "0000000000000000" })
    #expect(try await store.waiting().claimable == 0)
    #expect(
      try await db.count(
        "SELECT count(*) AS n FROM deliveries WHERE platform = 'webpush' AND lease_token IS NULL")
        == 1)
  }
}
