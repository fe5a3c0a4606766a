import Events
import Foundation
import Infrastructure
import TestSupport

/// Issue 22's benchmark: Web Push deliveries per second from one WebPushWorker against the
/// Web Push double over HTTPS (each message encrypted to its subscription, VAPID signed,
/// decrypted and checked by the double on the same two cores), with the worker's CPU per
/// delivery and peak memory.
struct WebPushBenchmark {
  let db: TestDatabase
  let deliveries: Int
  let subscriptions: Int

  func run() async throws -> String {
    let record = FileManager.default.temporaryDirectory.appendingPathComponent(
      "bench-webpush-\(UUID()).jsonl")
    defer { try? FileManager.default.removeItem(at: record) }
    var environment = try WorkerProcess.environment(
      database: db, subjectPrefix: uniqueSubjectPrefix())
    let double = try await WebPushSandboxHarness.start(environment: environment, record: record)
    defer { double.stop() }
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "wu", name: "Bench browser user")
    for _ in 0..<subscriptions {
      let subscription = try await double.subscribe()
      try await directory.addDevice(
        userID: "wu",
        address: try .checkedWebPush(
          endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh,
          auth: subscription.keys.auth, allowedHosts: ["localhost"]))
    }
    try await queue(deliveries)
    environment["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"] =
      double.pki.appendingPathComponent("apns-key.p8").path
    environment["MOWDECK_NOTIFICATIONS_WEBPUSH_SUBJECT"] = "mailto:bench@mowdeck.example"
    environment["MOWDECK_NOTIFICATIONS_WEBPUSH_CA_FILE"] = double.caFile
    let worker = try WorkerProcess("WebPushWorker", environment: environment)
    defer { worker.stop() }
    let start = ContinuousClock.now
    try await eventually(timeout: .seconds(600), "the Web Push deliveries to drain") {
      try await db.count(
        "SELECT count(*) AS n FROM deliveries WHERE platform = 'webpush' AND state = 'queued'")
        == 0
    }
    let drain = (ContinuousClock.now - start).seconds
    let cpu = cpuSeconds(pid: worker.pid) ?? 0
    let sent = try await db.count(
      "SELECT count(*) AS n FROM deliveries WHERE platform = 'webpush' AND state = 'sent'")
    let recorded = try double.recordLines()
    let refused = recorded.filter { $0.status != 201 }.count
    var table = TextTable(
      "run", "deliveries", "sent", "refused by the double", "seconds", "deliveries/s",
      "worker CPU ms/delivery", "worker peak RSS")
    table.add(
      "1 WebPushWorker, \(subscriptions) subscriptions", "\(deliveries)", "\(sent)",
      "\(refused)", String(format: "%.2f", drain), String(format: "%.0f", Double(sent) / drain),
      String(format: "%.2f", cpu * 1000 / Double(max(sent, 1))),
      peakRSSMiB(pid: worker.pid).map { String(format: "%.1f MiB", $0) } ?? "")
    return table.render()
  }

  /// `count` routine alarms of one mower, each queued to one of the subscriptions in turn.
  private func queue(_ count: Int) async throws {
    try await db.pool.query(
      """
      WITH devices_numbered AS (
        SELECT device_id, row_number() OVER (ORDER BY device_id) - 1 AS n FROM devices
        WHERE platform = 'webpush'
      ), picked AS (
        SELECT v.device_id, gen_random_uuid() AS event_id, gen_random_uuid() AS nid
        FROM generate_series(0, \(count - 1)) g
        JOIN devices_numbered v ON v.n = g % \(subscriptions)
      ), alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            mower_name, decision, photo, recipients)
        SELECT event_id, 'bm-0', 'battery_low', 'routine', now(), now(), 'Bench', 'pushed',
               'none', 1
        FROM picked
      ), note AS (
        INSERT INTO notifications (notification_id, event_id, user_id)
        SELECT nid, event_id, 'wu' FROM picked
      )
      INSERT INTO deliveries (notification_id, device_id, platform)
      SELECT nid, device_id, 'webpush' FROM picked
      """)
  }
}
