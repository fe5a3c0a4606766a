import Events
import Foundation
import TestSupport

/// The whole pipeline as processes: two replicas of every worker, the camera simulator and
/// the APNs sandbox over HTTP/2 and TLS, on one schema and subject prefix.
final class PipelineStack: @unchecked Sendable {
  let db: TestDatabase
  let subjects: Subjects
  let record: URL
  var environment: [String: String]
  private(set) var workers: [String: [WorkerProcess]] = [:]
  private var others: [WorkerProcess] = []
  static let photoTimeout = 5

  init(databaseURL: String? = nil, natsURL: String? = nil) async throws {
    db = try await TestDatabase.make(baseURL: databaseURL)
    try await db.importFleet40()
    let prefix = uniqueSubjectPrefix()
    subjects = Subjects(prefix: prefix)
    record = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(prefix).jsonl")
    environment = try WorkerProcess.environment(database: db, subjectPrefix: prefix)
    if let natsURL { environment["MOWDECK_NATS_URL"] = natsURL }
    let sandbox = try await APNsSandboxHarness.start(environment: environment, record: record)
    others.append(sandbox.process)
    environment.merge(sandbox.workerEnvironment) { $1 }
    environment["MOWDECK_NOTIFICATIONS_APP_URL"] = "https://localhost"
    environment["MOWDECK_NOTIFICATIONS_PHOTO_TIMEOUT_SECONDS"] = String(Self.photoTimeout)
    environment["MOWDECK_NOTIFICATIONS_HTTP_LISTEN"] = "127.0.0.1:0"
    environment["MOWDECK_FANOUT_ACK_WAIT_SECONDS"] = "2"
    environment["MOWDECK_APNS_LEASE_SECONDS"] = "5"
    others.append(
      try WorkerProcess(
        "GatewaySimulator",
        arguments: [
          "--frames", TestServers.repositoryPath("deploy/frames"), "--latency-ms", "50-1500",
          "--asleep", "0.05", "--busy", "0.05", "--silent", "0.05", "--garbage", "0.02",
        ], environment: environment))
    for name in ["FanoutWorker", "PhotoWorker", "APNsWorker", "ImageServeWorker"] {
      workers[name] = try (0..<2).map { _ in try WorkerProcess(name, environment: environment) }
    }
    workers["PruneWorker"] = [try WorkerProcess("PruneWorker", environment: environment)]
  }

  /// Replaces a replica by a new process (after a kill).
  func restart(_ name: String, _ index: Int) throws {
    workers[name]?[index] = try WorkerProcess(name, environment: environment)
  }

  func kill(_ name: String, _ index: Int) { workers[name]?[index].kill() }

  func stopAll() {
    for list in workers.values { for item in list { item.stop() } }
    for item in others { item.stop() }
  }

  func mowdeck(_ arguments: String...) async throws -> (status: Int32, output: String) {
    try await runCommand("mowdeck", arguments, environment: environment, timeout: .seconds(600))
  }

  func pushes() -> [[String: Any]] {
    let text = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { JSON.object(from: Array($0.utf8)) }
  }
}
