import Events
import Foundation
import Infrastructure
import TestSupport

/// The whole pipeline as processes: two replicas of every worker, the camera simulator, the
/// APNs sandbox over HTTP/2 and TLS and the Web Push, FCM and ntfy doubles over TLS (every
/// user of the fleet has a browser, an Android phone and an ntfy topic beside their
/// iPhones), on one schema and subject prefix.
final class PipelineStack: @unchecked Sendable {
  let db: TestDatabase
  let subjects: Subjects
  let record: URL
  let webPush: WebPushSandboxHarness
  let fcm: FCMSandboxHarness
  let ntfy: NtfySandboxHarness
  /// Each user's browser subscription, by the endpoint's last segment (as record lines name it).
  private(set) var browsers: [String: String] = [:]
  var environment: [String: String]
  private(set) var workers: [String: [WorkerProcess]] = [:]
  private var others: [WorkerProcess] = []
  static let photoTimeout = 5

  /// - Parameter extraSettings: more worker settings (the cluster's stream replicas).
  init(
    databaseURL: String? = nil, natsURL: String? = nil, extraSettings: [String: String] = [:]
  ) async throws {
    db = try await TestDatabase.make(baseURL: databaseURL)
    try await db.importFleet40()
    var settings = [
      "MOWDECK_NOTIFICATIONS_PHOTO_TIMEOUT_SECONDS": String(Self.photoTimeout),
      "MOWDECK_FANOUT_ACK_WAIT_SECONDS": "2",
      "MOWDECK_APNS_LEASE_SECONDS": "5",
    ]
    if let natsURL { settings["MOWDECK_NATS_URL"] = natsURL }
    settings.merge(extraSettings) { $1 }
    let base = try await PipelineProcesses.start(
      database: db, recordName: "e2e", appURL: "https://localhost", settings: settings,
      simulatorArguments: [
        "--latency-ms", "50-1500", "--asleep", "0.05", "--busy", "0.05", "--silent", "0.05",
        "--garbage", "0.02",
      ])
    subjects = base.subjects
    record = base.record
    environment = base.environment
    others = [base.sandbox.process, base.simulator]
    webPush = try await WebPushSandboxHarness.start(
      environment: environment,
      record: FileManager.default.temporaryDirectory.appendingPathComponent(
        "e2e-webpush-\(UUID()).jsonl"))
    // Every registration token is answered as a valid one: the fleet's Android phones.
    fcm = try await FCMSandboxHarness.start(
      environment: environment,
      record: FileManager.default.temporaryDirectory.appendingPathComponent(
        "e2e-fcm-\(UUID()).jsonl"), acceptAnyToken: true)
    ntfy = try await NtfySandboxHarness.start(
      environment: environment,
      record: FileManager.default.temporaryDirectory.appendingPathComponent(
        "e2e-ntfy-\(UUID()).jsonl"))
    for settings in [webPush.workerEnvironment, fcm.workerEnvironment, ntfy.workerEnvironment] {
      environment.merge(settings) { $1 }
    }
    let directory = Directory(pool: db.pool)
    for row in try await db.pool.query("SELECT user_id FROM users ORDER BY user_id") {
      let user = try row.string("user_id")
      let browser = try await webPush.subscribe()
      _ = try await directory.addDevice(
        userID: user,
        address: .webPush(
          endpoint: browser.endpoint, p256dh: browser.keys.p256dh, auth: browser.keys.auth))
      browsers[browser.id] = user
      _ = try await directory.addDevice(userID: user, address: .fcm(token: "fleet:\(user)"))
      _ = try await directory.addDevice(userID: user, address: DeviceAddress.newNtfyTopic())
    }
    for name in Self.workerNames {
      workers[name] = try (0..<2).map { _ in try WorkerProcess(name, environment: environment) }
    }
    workers["PruneWorker"] = [try WorkerProcess("PruneWorker", environment: environment)]
  }

  /// The workers run as two replicas each.
  static let workerNames = [
    "FanoutWorker", "PhotoWorker", "APNsWorker", "WebPushWorker", "FCMWorker", "NtfyWorker",
    "ImageServeWorker",
  ]

  /// Replaces a replica by a new process (after a kill).
  func restart(_ name: String, _ index: Int) throws {
    workers[name]?[index] = try WorkerProcess(name, environment: environment)
  }

  func kill(_ name: String, _ index: Int) { workers[name]?[index].kill() }

  func stopAll() {
    for list in workers.values { for item in list { item.stop() } }
    for item in others { item.stop() }
    webPush.stop()
    fcm.stop()
    ntfy.stop()
  }

  func mowdeck(_ arguments: String...) async throws -> (status: Int32, output: String) {
    try await runCommand("mowdeck", arguments, environment: environment, timeout: .seconds(600))
  }

  func pushes() -> [[String: JSONValue]] {
    let text = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { JSON.object(from: Array($0.utf8)) }
  }
}
