import Events
import Foundation
import Infrastructure
import TestSupport

/// A channel's double as the channel benchmark drives it. Each channel's harness conforms
/// in its own benchmark file, so the seeding, the timing and the table stay one piece of
/// code for Web Push, FCM and ntfy alike.
protocol BenchedDouble: Sendable {
  /// The platform whose deliveries the double takes.
  static var platform: DevicePlatform { get }
  /// The worker's executable, e.g. "FCMWorker".
  static var worker: String { get }
  /// What the devices are called on this platform, for the table ("subscriptions").
  static var deviceNoun: String { get }
  /// Starts the double with the harness's environment, recording to `record`.
  static func startDouble(environment: [String: String], record: URL) async throws -> Self
  /// The double's process, whose CPU the table shows beside the worker's: on two shared
  /// cores the double's work is what the worker's throughput competes with.
  var process: WorkerProcess { get }
  /// What points the channel's worker at this double.
  var workerEnvironment: [String: String] { get }
  /// Registers one device with the double (a subscription, a registration token, a
  /// topic), as a phone or browser would, and returns its address.
  func newDevice() async throws -> DeviceAddress
  /// How many sends the double has answered with anything but success: a benchmark that
  /// counts refusals as deliveries would measure the wrong thing.
  func refusedSends() throws -> Int
  /// Figures of this double worth a line under the table (FCM: the access tokens granted).
  func notes() throws -> [String]
  func stop()
}

extension BenchedDouble {
  func notes() throws -> [String] { [] }
}

/// Issues 22 and 23's benchmark: deliveries per second from one channel worker against its
/// double. `deliveries` routine alarms without a photo are queued to `devices` devices in a
/// fresh database before the worker starts, so the figure is the worker draining a backlog:
/// claim, build and send each message, commit its outcome. The double, PostgreSQL and the
/// worker share the machine's cores.
struct ChannelBenchmark<Harness: BenchedDouble> {
  let db: TestDatabase
  let deliveries: Int
  let devices: Int

  private var platform: DevicePlatform { Harness.platform }

  /// Runs once and returns the table, with the double's notes under it.
  func run() async throws -> String {
    let record = FileManager.default.temporaryDirectory.appendingPathComponent(
      "bench-\(platform)-\(UUID()).jsonl")
    defer { try? FileManager.default.removeItem(at: record) }
    var environment = try WorkerProcess.environment(
      database: db, subjectPrefix: uniqueSubjectPrefix())
    let double = try await Harness.startDouble(environment: environment, record: record)
    defer { double.stop() }
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "bu", name: "Bench user")
    for _ in 0..<devices {
      try await directory.addDevice(userID: "bu", address: try await double.newDevice())
    }
    try await queue()
    environment.merge(double.workerEnvironment) { $1 }
    let doubleCPUBefore = cpuSeconds(pid: double.process.pid) ?? 0
    let process = try WorkerProcess(Harness.worker, environment: environment)
    defer { process.stop() }
    let start = ContinuousClock.now
    try await eventually(timeout: .seconds(600), "the \(platform) deliveries to drain") {
      try await db.count(
        "SELECT count(*) AS n FROM deliveries WHERE platform = \(platform.rawValue) AND state = 'queued'"
      ) == 0
    }
    let seconds = (ContinuousClock.now - start).seconds
    let workerCPU = cpuSeconds(pid: process.pid) ?? 0
    let doubleCPU = (cpuSeconds(pid: double.process.pid) ?? 0) - doubleCPUBefore
    let sent = try await db.count(
      "SELECT count(*) AS n FROM deliveries WHERE platform = \(platform.rawValue) AND state = 'sent'"
    )
    var table = TextTable(
      "run", "deliveries", "sent", "refused by the double", "end to end s", "deliveries/s",
      "worker CPU ms/delivery", "double CPU ms/delivery", "worker peak RSS")
    let perDelivery = { (cpu: Double) in
      String(format: "%.2f", cpu * 1000 / Double(max(sent, 1)))
    }
    table.add(
      "1 \(Harness.worker), \(devices) \(Harness.deviceNoun)", "\(deliveries)", "\(sent)",
      "\(try double.refusedSends())", String(format: "%.2f", seconds),
      String(format: "%.0f", Double(sent) / seconds), perDelivery(workerCPU),
      perDelivery(doubleCPU),
      peakRSSMiB(pid: process.pid).map { String(format: "%.1f MiB", $0) } ?? "")
    return ([table.render()] + (try double.notes())).joined(separator: "\n")
  }

  /// `deliveries` routine alarms of one mower, each queued to one of the devices in turn.
  private func queue() async throws {
    try await db.pool.query(
      """
      WITH devices_numbered AS (
        SELECT device_id, row_number() OVER (ORDER BY device_id) - 1 AS n FROM devices
        WHERE platform = \(platform.rawValue)
      ), picked AS (
        SELECT v.device_id, gen_random_uuid() AS event_id, gen_random_uuid() AS nid
        FROM generate_series(0, \(deliveries - 1)) g
        JOIN devices_numbered v ON v.n = g % \(devices)
      ), alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            mower_name, decision, photo, recipients)
        SELECT event_id, 'bm-0', 'battery_low', 'routine', now(), now(), 'Bench', 'pushed',
               'none', 1
        FROM picked
      ), note AS (
        INSERT INTO notifications (notification_id, event_id, user_id)
        SELECT nid, event_id, 'bu' FROM picked
      )
      INSERT INTO deliveries (notification_id, device_id, platform)
      SELECT nid, device_id, \(platform.rawValue) FROM picked
      """)
  }
}
