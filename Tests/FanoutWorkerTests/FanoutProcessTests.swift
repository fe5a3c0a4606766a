import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// The fan-out as real processes against the real servers: the recorded fleet40 stream
/// replayed through one and three replicas, replicas killed with SIGKILL, database
/// connections cut, NATS absent at start, and a bad setting.
@Suite(.serialized) struct FanoutProcessTests {
  let alarms = TestServers.fixture("fleet40.alarms.jsonl")
  let expected = TestServers.fixture("fleet40.expected.jsonl")

  struct Stack {
    let db: TestDatabase
    let environment: [String: String]

    init(extra: [String: String] = [:]) async throws {
      db = try await TestDatabase.make()
      try await db.importFleet40()
      var environment = try WorkerProcess.environment(
        database: db, subjectPrefix: uniqueSubjectPrefix())
      environment["MOWDECK_FANOUT_ACK_WAIT_SECONDS"] = "2"
      environment.merge(extra) { $1 }
      self.environment = environment
    }

    func worker() throws -> WorkerProcess {
      try WorkerProcess("FanoutWorker", environment: environment)
    }

    func mowdeck(_ arguments: String...) async throws -> (status: Int32, output: String) {
      try await runCommand("mowdeck", arguments, environment: environment)
    }
  }

  @Test(arguments: [1, 3])
  func replayingFleet40GivesExactlyTheExpectedDecisions(replicas: Int) async throws {
    let stack = try await Stack()
    let workers = try (0..<replicas).map { _ in try stack.worker() }
    defer { for item in workers { item.stop() } }
    let replay = try await stack.mowdeck("replay", alarms)
    #expect(replay.status == 0, "\(replay.output)")
    #expect(replay.output.contains("replayed 2906 alarms"))
    let check = try await stack.mowdeck("check-decisions", alarms, expected)
    #expect(check.status == 0, "\(check.output.suffix(2000))")
    #expect(check.output.contains("all 2906 decisions match"))
    // Every replica took part and none failed.
    for worker in workers { #expect(worker.isRunning) }
  }

  @Test func aReplicaKilledWithSIGKILLMidReplayLosesAndDoublesNothing() async throws {
    let stack = try await Stack()
    var workers = [try stack.worker(), try stack.worker()]
    defer { for item in workers { item.kill() } }
    // Paced, so that the kills land mid-stream: unpaced, the replay can end within seconds.
    // At 200/s the stream lasts about 15 s; at 400/s a loaded run once decided all of it
    // between two kills (a backlog drains faster than it is published).
    let replay = try WorkerProcess(
      "mowdeck", arguments: ["replay", alarms, "--rate", "200"], environment: stack.environment)
    // Kill replicas at random moments while alarms are being decided, and start new ones.
    // Counted on the decisions, not on the replay: on a loaded machine the replay can end
    // before a replica has started, and the stream is then decided after it.
    let total = try Self.distinctCorrelations(alarms)
    var killsMidStream = 0
    for round in 0..<4 {
      try await eventually(timeout: .seconds(60), "alarms to flow") {
        try await stack.db.count("SELECT count(*) AS n FROM ingress_messages") > 100 * (round + 1)
      }
      let victim = Int.random(in: 0..<workers.count)
      if try await stack.db.count("SELECT count(*) AS n FROM ingress_messages") < total {
        killsMidStream += 1
      }
      workers[victim].kill()
      workers[victim] = try stack.worker()
    }
    let status = try await replay.wait(timeout: .seconds(120))
    #expect(status == 0, "\(replay.log.suffix(2000))")
    #expect(killsMidStream >= 2)
    let check = try await stack.mowdeck("check-decisions", alarms, expected)
    #expect(check.status == 0, "\(check.output.suffix(2000))")
    // Nothing decided twice: one ingress record per alarm (event_id) or per message that
    // carries none, one decision per alarm.
    #expect(
      try await stack.db.count("SELECT count(*) AS n FROM ingress_messages")
        == (try Self.distinctCorrelations(alarms)))
    #expect(
      try await stack.db.count(
        "SELECT count(*) AS n FROM (SELECT correlation_id FROM events WHERE type = 'alarm.received' GROUP BY 1 HAVING count(*) > 1) d"
      ) == 0)
  }

  /// Distinct event ids in a recorded stream, plus one for each message without a usable one.
  static func distinctCorrelations(_ path: String) throws -> Int {
    var ids: Set<UUID> = []
    var without = 0
    for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
      let record = JSON.object(from: Array(line.utf8)) ?? [:]
      let payload = Array((record["payload"]?.string ?? "").utf8)
      if let id = (JSON.object(from: payload)?["event_id"]?.string).flatMap(
        UUID.init(uuidString:))
      {
        ids.insert(id)
      } else {
        without += 1
      }
    }
    return ids.count + without
  }

  @Test func databaseConnectionsCutMidReplayLoseAndDoubleNothing() async throws {
    let stack = try await Stack()
    // Named for this test: the other tests' FanoutWorkers run on the same server meanwhile.
    let name = "FanoutWorker-" + stack.db.schema
    var environment = stack.environment
    environment["MOWDECK_DATABASE_URL"] = stack.db.url(applicationName: name)
    let workers = [
      try WorkerProcess("FanoutWorker", environment: environment),
      try WorkerProcess("FanoutWorker", environment: environment),
    ]
    defer { for item in workers { item.stop() } }
    let replay = try WorkerProcess(
      "mowdeck", arguments: ["replay", alarms, "--rate", "400"], environment: stack.environment)
    let admin = DatabasePool(url: try TestServers.databaseURL(), applicationName: "test-killer")
    var cuts = 0
    while replay.isRunning, cuts < 15 {
      try await Task.sleep(for: .milliseconds(300))
      let rows = try await admin.query(
        """
        SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity
        WHERE application_name = \(name)
          AND current_setting('search_path') IS NOT NULL
          AND query NOT LIKE '%pg_stat_activity%'
        """)
      let terminated = try rows[0].int("n")
      cuts += terminated > 0 ? 1 : 0
    }
    #expect(cuts > 0)
    let status = try await replay.wait(timeout: .seconds(120))
    #expect(status == 0, "\(replay.log.suffix(2000))")
    let check = try await stack.mowdeck("check-decisions", alarms, expected)
    #expect(check.status == 0, "\(check.output.suffix(2000))")
    #expect(workers.allSatisfy { $0.isRunning })
  }

  @Test func aWorkerStartedBeforeNATSWaitsForIt() async throws {
    let port = try freePort()
    let stack = try await Stack(extra: ["MOWDECK_NATS_URL": "nats://127.0.0.1:\(port)"])
    let worker = try stack.worker()
    defer { worker.stop() }
    try await Task.sleep(for: .seconds(1))
    #expect(worker.isRunning)
    let storage = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nats-\(UUID().uuidString.prefix(8))")
    let nats = try ChildProcess(
      executable: "/usr/bin/env",
      arguments: ["nats-server", "-js", "-a", "127.0.0.1", "-p", "\(port)", "-sd", storage.path],
      environment: ProcessInfo.processInfo.environment, output: nil, errors: nil)
    defer {
      nats.send(SIGTERM)
      nats.waitUntilExit()
    }
    let publish = try await stack.mowdeck(
      "publish", "--mower", "m-7-0001", "--kind", "mower_lifted")
    #expect(publish.status == 0, "\(publish.output)")
    #expect(publish.output.contains("pushed"))
    #expect(worker.log.contains("NATS not reachable yet"))
  }

  @Test func aBadSettingStopsTheWorkerWithOneLineNamingIt() async throws {
    let stack = try await Stack(extra: ["MOWDECK_NOTIFICATIONS_COOLDOWN_THEFT_SECONDS": "ten"])
    let worker = try stack.worker()
    let status = try await worker.wait(timeout: .seconds(10))
    #expect(status == 2)
    let lines = worker.log.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.contains("MOWDECK_NOTIFICATIONS_COOLDOWN_THEFT_SECONDS") == true)
  }
}
