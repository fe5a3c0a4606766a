import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Run one after another with the other suites of `FanoutProcessTests`: each starts a pipeline of
/// processes, and two at once starve the in-process servers of the other tests.
extension FanoutProcessTests {
  /// nats-server killed, its storage deleted and started again under a running pipeline: the
  /// workers re-create the stream and the consumer by themselves, and the alarms published
  /// afterwards, whose stream sequences start from 1 again, are pushed, none taken for a duplicate
  /// of an alarm handled before (docs/interfaces.md#ingress-alarm).
  @Suite struct StreamRecreationTests {
    /// Mowers of fleet40 with recipients: the first five before the loss, the others after
    /// (a second theft alarm of one mower would fall in its cooldown).
    static let before = ["m-7-0001", "m-7-0002", "m-7-0003", "m-7-0004", "m-7-0005"]
    static let after = ["m-7-0006", "m-7-0007", "m-7-0008", "m-7-0009", "m-7-0010"]

    @Test(.timeLimit(.minutes(2)))
    func alarmsAfterTheStreamIsLostArePushedNotTakenForDuplicates() async throws {
      let port = try freePort()
      let url = "nats://127.0.0.1:\(port)"
      var server = try NATSServer(port: port)
      defer { server.stop() }
      let db = try await TestDatabase.make()
      try await db.importFleet40()
      let base = try await PipelineProcesses.start(
        database: db, recordName: "stream-recreation", appURL: "https://localhost",
        settings: ["MOWDECK_NATS_URL": url, "MOWDECK_FANOUT_ACK_WAIT_SECONDS": "3"],
        simulatorArguments: [])
      defer {
        base.simulator.stop()
        base.sandbox.process.stop()
      }
      let workers = try ["FanoutWorker", "FanoutWorker", "APNsWorker"].map {
        try WorkerProcess($0, environment: base.environment)
      }
      defer { for worker in workers { worker.stop() } }
      let nats = try NATSClient.connect(
        url: url, name: "recreation-test", logger: TestServers.logger)
      let subjects = base.subjects
      // Both fan-outs bound to the first server's stream: one that binds only after the loss
      // creates the stream as its first bind and logs no re-creation (a clean-clone CI run,
      // 2026-12-02, started one 430 ms late).
      try await eventually(timeout: .seconds(20), "both fan-outs running") {
        workers.filter { $0.name == "FanoutWorker" }
          .allSatisfy { $0.log.contains("fan-out running") }
      }

      let before = try await pushEach(Self.before, nats: nats, subjects: subjects, db: db)
      // The server dies with its storage; a new one starts empty on the same port.
      server.kill()
      server = try NATSServer(port: port)
      let jetStream = JetStream(client: nats)
      try await eventually(timeout: .seconds(20), "the workers to re-create stream and consumer") {
        (try? await jetStream.consumerBacklog(
          stream: subjects.alarmsStream, durable: subjects.fanoutConsumer)) != nil
      }
      let after = try await pushEach(Self.after, nats: nats, subjects: subjects, db: db)
      #expect(after.allSatisfy { $0.outcome == "pushed" }, "\(after.map(\.outcome))")
      // The new stream numbered its messages from 1 again: the same sequences as before.
      #expect(Set(after.map(\.streamSequence)).isSubset(of: Set(before.map(\.streamSequence))))
      for decided in after {
        let id = try #require(decided.eventID)
        try await eventually(timeout: .seconds(15), "delivery.sent for \(id)") {
          try await EventLog().story(of: id, pool: db.pool).contains { $0.type == "delivery.sent" }
        }
      }
      for worker in workers { #expect(worker.isRunning) }
      #expect(workers.map(\.log).joined().contains("re-creating them"))
    }

    /// One theft alarm per mower, each waited for until decided.
    private func pushEach(
      _ mowers: [String], nats: NATSClient, subjects: Subjects, db: TestDatabase
    ) async throws
      -> [DecidedAlarm]
    {
      let publisher = try await AlarmPublisher(nats: nats, subjects: subjects, pool: db.pool)
      var decided: [DecidedAlarm] = []
      for mower in mowers {
        let payload = JSON.encode([
          "event_id": .string(UUID().uuidString.lowercased()), "mower_id": .string(mower),
          "kind": "mower_lifted",
          "occurred_at": .string(Timestamp.format(Date())),
        ])
        decided.append(
          try await publisher.publishAndWait(
            subject: subjects.alarm(mowerID: mower), payload: Array(payload.utf8),
            messageID: UUID().uuidString, timeout: .seconds(20)))
      }
      return decided
    }
  }
}

/// A nats-server of one test's own, with JetStream storage in a fresh folder.
struct NATSServer {
  private let process: ChildProcess
  private let storage: URL

  init(port: Int) throws {
    storage = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nats-\(UUID().uuidString.prefix(8))")
    process = try ChildProcess(
      executable: "/usr/bin/env",
      arguments: ["nats-server", "-js", "-a", "127.0.0.1", "-p", "\(port)", "-sd", storage.path],
      environment: ProcessInfo.processInfo.environment, output: nil, errors: nil)
  }

  /// SIGKILL, and its storage deleted: as a server lost with its disk.
  func kill() {
    process.send(SIGKILL)
    process.waitUntilExit()
    try? FileManager.default.removeItem(at: storage)
  }

  func stop() {
    process.send(SIGTERM)
    process.waitUntilExit()
    try? FileManager.default.removeItem(at: storage)
  }
}
