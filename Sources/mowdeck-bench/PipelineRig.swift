import Events
import Foundation
import Infrastructure
import Synchronization
import TestSupport

/// The whole pipeline as processes for benchmarks: test PKI, the APNs sandbox, the camera
/// simulator and whichever workers a benchmark starts, all on one schema and subject prefix.
final class PipelineRig: @unchecked Sendable {
  let db: TestDatabase
  let subjects: Subjects
  let record: URL
  let pki: URL
  private(set) var environment: [String: String]
  private(set) var processes: [WorkerProcess] = []
  private let port: Int

  init(db: TestDatabase, cameraLatency: String, simulatorArguments: [String] = []) async throws {
    self.db = db
    let base = try await PipelineProcesses.start(
      database: db, recordName: "bench-pushes", appURL: "https://owner.example",
      // The contract's default, 600 genuine photo requests a minute per serving process, is
      // for a small owner's server; the benchmark's phones ask hundreds a second.
      settings: ["MOWDECK_NOTIFICATIONS_IMAGE_RATE_TOTAL": "1000000"],
      simulatorArguments: ["--latency-ms", cameraLatency] + simulatorArguments)
    subjects = base.subjects
    record = base.record
    environment = base.environment
    pki = base.sandbox.pki
    port = base.sandbox.port
    processes = [base.sandbox.process, base.simulator]
  }

  func startWorkers(_ names: [String]) async throws {
    for name in names { processes.append(try WorkerProcess(name, environment: environment)) }
    try await Task.sleep(for: .seconds(1))
  }

  /// The pipeline as the whole-stack benchmarks run it: `replicas` of each stage's worker
  /// and one pruner.
  func startPipeline(replicas: Int) async throws {
    var workers: [String] = []
    for name in ["FanoutWorker", "PhotoWorker", "APNsWorker", "ImageServeWorker"] {
      workers += Array(repeating: name, count: replicas)
    }
    try await startWorkers(workers + ["PruneWorker"])
  }

  func stop() { for item in processes.reversed() { item.stop() } }

  func rss(_ name: String) -> String {
    processes.filter { $0.name == name }.compactMap { peakRSSMiB(pid: $0.pid) }
      .map { String(format: "%.1f MiB", $0) }.joined(separator: ", ")
  }

  /// The sandbox's own answer time: requests on one curl connection, from the request
  /// going out to the whole answer in.
  func sandboxAnswerTimes(count: Int, perSecond: Int? = nil) throws -> Samples {
    let url = "https://127.0.0.1:\(port)/3/device/" + String(repeating: "0", count: 64)
    // The URLs go in a config file: a soak's probe has thousands, more than a command line
    // holds. `output` is per URL: one for each, or the bodies would mix with the timings.
    let config = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sandbox-floor-\(UUID().uuidString.prefix(8)).curlrc")
    try String(repeating: "url = \"\(url)\"\noutput = \"/dev/null\"\n", count: count)
      .write(to: config, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: config) }
    // curl's `--rate` spaces the requests, still on one connection: a probe beside a load.
    let rate = perSecond.map { "--rate \($0)/s " } ?? ""
    let output = try runShell(
      "curl -sS --http2 \(rate)--cacert '\(pki.appendingPathComponent("ca.pem").path)' "
        + "-X POST -d '{}' -w '%{time_pretransfer} %{time_total}\\n' -K '\(config.path)'")
    var samples = Samples()
    for line in output.split(separator: "\n") {
      let parts = line.split(separator: " ").compactMap { Double($0) }
      if parts.count == 2 { samples.add(parts[1] - parts[0]) }
    }
    return samples
  }

  /// Queues `count` deliveries to the bench fleet's devices, as the fan-out would.
  func queueDeliveries(count: Int) async throws {
    try await db.pool.query(
      """
      WITH picked AS (
        SELECT d.device_id, d.user_id, gen_random_uuid() AS event_id, gen_random_uuid() AS nid
        FROM devices d, generate_series(1, \(count)) g
        WHERE d.user_id = 'bu-' || (g % 3000)
      ), alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            decision, photo, recipients)
        SELECT event_id, 'bm-0', 'battery_low', 'routine', now(), now(), 'pushed', 'none', 1 FROM picked
      ), note AS (
        INSERT INTO notifications (notification_id, event_id, user_id)
        SELECT nid, event_id, user_id FROM picked
      )
      INSERT INTO deliveries (notification_id, device_id) SELECT nid, device_id FROM picked
      """)
    try await nats(publish: subjects.wakeDeliveries)
  }

  private func nats(publish subject: String) async throws {
    let client = try NATSClient.connect(
      url: try TestServers.natsURL(), name: "rig", logger: TestServers.logger)
    try client.publish(subject)
    try await client.flush()
  }

  /// Publishes `count` alarms at `rate` a second, the `index`-th made by `alarm`; returns
  /// each alarm's id with its publish time, and how many publishes JetStream did not
  /// acknowledge in time. Those are counted, not thrown: past the pipeline's limit the
  /// broker's acknowledgements come late, and a ramp must still measure the step. Such an
  /// alarm stays in `sent`: if JetStream stored it after all it is pushed and timed, if
  /// not it counts as never pushed.
  func publishAtRate(
    _ publisher: AlarmPublisher, rate: Int, count: Int,
    alarm: @escaping (Int) -> (eventID: String, mower: String, payload: [UInt8])
  ) async throws -> PublishedAlarms {
    let start = ContinuousClock.now
    var sent: [String: Date] = [:]
    let subjects = subjects
    let unacknowledged = PublishCount()
    // A discarding group: a 10-minute run must not keep every finished publish.
    try await withThrowingDiscardingTaskGroup { group in
      for index in 0..<count {
        let due = start + .microseconds(Int64(index) * 1_000_000 / Int64(rate))
        if due > .now { try await Task.sleep(until: due, clock: .continuous) }
        let next = alarm(index)
        sent[next.eventID] = Date()
        group.addTask {
          do {
            _ = try await publisher.publish(
              subject: subjects.alarm(mowerID: next.mower), payload: next.payload)
          } catch NATSError.timeout {
            // Only a late acknowledgement is the rate's; any other failure is the broker's
            // and stops the benchmark.
            unacknowledged.add()
          }
        }
      }
    }
    return PublishedAlarms(sent: sent, unacknowledged: unacknowledged.value)
  }

  /// Publish-to-sandbox latency of each alarm's first push.
  func alarmToPush(_ sent: [String: Date]) async throws -> Samples {
    var eventOf: [String: String] = [:]
    for row in try await db.pool.query(
      "SELECT notification_id::text AS n, event_id::text AS e FROM notifications")
    {
      eventOf[try row.string("n")] = try row.string("e")
    }
    var first: [String: Date] = [:]
    for push in PushTail(record: record).readNew() {
      guard let event = push.notificationID.flatMap({ eventOf[$0] }) else { continue }
      if first[event].map({ push.time < $0 }) ?? true { first[event] = push.time }
    }
    var samples = Samples()
    for (event, published) in sent {
      if let pushed = first[event] { samples.add(pushed.timeIntervalSince(published)) }
    }
    return samples
  }
}

/// What `publishAtRate` published.
struct PublishedAlarms {
  /// Each alarm's event id with the time it was published.
  let sent: [String: Date]
  /// Publishes JetStream did not acknowledge within the publisher's timeout.
  let unacknowledged: Int

  /// The alarms, for a benchmark that measures only a fully accepted load: a publish not
  /// acknowledged stops it, as it did before the ramp counted them.
  func requireAllAcknowledged() throws -> [String: Date] {
    guard unacknowledged == 0 else { throw UnacknowledgedPublishes(count: unacknowledged) }
    return sent
  }
}

/// Publishes JetStream did not acknowledge in time, in a benchmark that needs every one.
struct UnacknowledgedPublishes: Error, CustomStringConvertible {
  let count: Int
  var description: String {
    "\(count) alarm publishes were not acknowledged by JetStream in time: the rate is past "
      + "what this machine accepts (scripts/bench.sh pipeline --ramp measures such rates)"
  }
}

/// A count the publishing tasks add to at once.
private final class PublishCount: Sendable {
  private let count = Atomic<Int>(0)
  func add() { count.add(1, ordering: .relaxed) }
  var value: Int { count.load(ordering: .relaxed) }
}
