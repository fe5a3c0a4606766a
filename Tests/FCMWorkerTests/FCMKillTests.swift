import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import FCMWorker

/// An FCMWorker killed with SIGKILL while its sends wait for a slow FCM: none is lost, and
/// each one sent twice is sent under the same `android.notification.tag`, which replaces
/// rather than doubles on the phone.
@Suite struct FCMKillTests {
  @Test func aWorkerKilledMidBatchLosesNothingAndRepeatsOnlyUnderTheSameTag() async throws {
    let stack = try await FCMProcessTests.Stack()
    defer { stack.stop() }
    var phones: [String] = []
    for _ in 0..<10 { phones.append(try await stack.phone(delayMs: 3000)) }
    for _ in 0..<2 { try await stack.db.queuePushedAlarm() }
    // Longer than a batch takes at the slow FCM (20 answers of 3 s on 8 connections).
    let lease = ["MOWDECK_APNS_LEASE_SECONDS": "12"]
    let first = try stack.worker(lease)
    defer { first.stop() }
    // Killed once it holds all 20 (their answers take 3 s each).
    try await stack.db.waitUntilFirstAttemptsLeased(20)
    try await Task.sleep(for: .milliseconds(500))
    first.kill()
    let second = try stack.worker(lease)
    defer { second.stop() }
    try await stack.waitForSent(20, timeout: .seconds(60))
    let notifications = Set(
      try await stack.db.pool.query("SELECT notification_id FROM notifications").map {
        try $0.uuid("notification_id").uuidString.lowercased()
      })
    #expect(notifications.count == 2)
    let messages = try stack.sent().map(FCMProcessTests.message)
    // Every phone got each alarm; a repeat carries the same tag as the first sending.
    for phone in phones {
      let tags = messages.filter { $0.token == phone }.map(\.android.notification.tag)
      #expect(Set(tags) == notifications, "\(phone.prefix(8)): \(tags)")
    }
    #expect(messages.count >= 20)
    #expect(
      try await stack.db.count(
        "SELECT count(*) AS n FROM events WHERE type = 'delivery.sent'") == 20)
  }
}
