import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Run one after another with the other suites of `FanoutProcessTests`: each starts a pipeline of
/// processes, and two at once starve the in-process servers of the other tests.
extension FanoutProcessTests {
  /// Faults the fan-out must survive without holding up other mowers
  /// (docs/interfaces.md#ingress-alarm): an alarm PostgreSQL refuses for its content, one that
  /// fails in a way nobody can class, and one caught in an outage, each provoked by a trigger on a
  /// real PostgreSQL, all at once, against two real FanoutWorker processes.
  @Suite struct FanoutFaultTests {
    /// Mowers of fleet40, each of which has recipients with devices.
    static let refused = "m-7-0001"
    static let cursed = "m-7-0002"
    static let outage = "m-7-0003"
    static let healthy = ["m-7-0004", "m-7-0005", "m-7-0006", "m-7-0007", "m-7-0008"]

    /// The trigger plays three kinds of PostgreSQL error, one per mower: a data error (class
    /// 22), an error of no known class (P0001, a plain RAISE), and an administrator shutdown
    /// (57P01) until the test inserts into `outage_over`.
    static let faults = """
      CREATE TABLE outage_over (done boolean);
      CREATE FUNCTION fault_by_mower() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.mower_id = '\(refused)' THEN
          RAISE EXCEPTION 'value refused' USING ERRCODE = '22023';
        ELSIF NEW.mower_id = '\(cursed)' THEN
          RAISE EXCEPTION 'something odd';
        ELSIF NEW.mower_id = '\(outage)' AND NOT EXISTS (SELECT 1 FROM outage_over) THEN
          RAISE EXCEPTION 'shutting down' USING ERRCODE = '57P01';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fault_by_mower BEFORE INSERT ON alarms
        FOR EACH ROW EXECUTE FUNCTION fault_by_mower();
      """

    @Test(.timeLimit(.minutes(2)))
    func refusedUndecidableAndStalledAlarmsHoldUpNoOtherMower() async throws {
      let db = try await TestDatabase.make()
      try await db.importFleet40()
      try await db.pool.withTransaction { tx in try tx.execute(Self.faults) }
      let prefix = uniqueSubjectPrefix()
      var environment = try WorkerProcess.environment(database: db, subjectPrefix: prefix)
      environment["MOWDECK_FANOUT_ACK_WAIT_SECONDS"] = "3"
      environment["MOWDECK_STALL_SECONDS"] = "3"
      environment["MOWDECK_FANOUT_MAX_ATTEMPTS"] = "4"
      let workers = try (0..<2).map { _ in
        try WorkerProcess("FanoutWorker", environment: environment)
      }
      defer { for worker in workers { worker.stop() } }
      let subjects = Subjects(prefix: prefix)
      let nats = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "fault-test", logger: TestServers.logger)
      let publisher = try await AlarmPublisher(nats: nats, subjects: subjects, pool: db.pool)

      var faulty: [String: UUID] = [:]
      for mower in [Self.refused, Self.cursed, Self.outage] {
        let id = UUID()
        faulty[mower] = id
        _ = try await publisher.publish(
          subject: subjects.alarm(mowerID: mower), payload: Self.alarm(id, mower: mower))
      }
      // Every other mower is decided at once, while the three are retried or given up.
      for mower in Self.healthy {
        let decided = try await publisher.publishAndWait(
          subject: subjects.alarm(mowerID: mower), payload: Self.alarm(UUID(), mower: mower),
          timeout: .seconds(10))
        #expect(decided.outcome == "pushed", "\(mower)")
      }

      let refusal = try await rejection(of: faulty[Self.refused]!, db)
      #expect(refusal.reason == "refused_by_database")
      #expect(refusal.errorClass == "22")
      #expect(refusal.sqlState == "22023")
      let undecidable = try await rejection(of: faulty[Self.cursed]!, db)
      #expect(undecidable.reason == "undecidable")
      #expect(undecidable.errorClass == "P0")
      #expect((undecidable.attempts ?? 0) >= 4)

      // The outage only delays: no rejection however long it lasts, and the replica holding
      // the alarm reports itself stalled once nothing moved for the stall limit.
      try await eventually(timeout: .seconds(20), "a stalled replica to answer 503") {
        for worker in workers where try await Self.health(of: worker) == 503 { return true }
        return false
      }
      #expect(
        try await db.count("SELECT count(*) AS n FROM events WHERE type = 'alarm.rejected'") == 2)
      try await db.pool.query("INSERT INTO outage_over VALUES (true)")
      try await eventually(timeout: .seconds(15), "the outage alarm decided") {
        try await EventLog().story(of: faulty[Self.outage]!, pool: db.pool).map(\.type)
          .contains("alarm.received")
      }
      try await eventually(timeout: .seconds(15), "both replicas healthy again") {
        for worker in workers where try await Self.health(of: worker) != 200 { return false }
        return true
      }
      // Nothing left unacknowledged, and both replicas alive throughout.
      try await eventually(timeout: .seconds(15), "an empty consumer") {
        let backlog = try await JetStream(client: nats).consumerBacklog(
          stream: subjects.alarmsStream, durable: subjects.fanoutConsumer)
        return backlog?.pending == 0 && backlog?.ackPending == 0
      }
      for worker in workers { #expect(worker.isRunning) }
      let logs = workers.map(\.log).joined()
      #expect(logs.contains("\"class\":\"outage\""))
    }

    /// A burst against one connection (ADR 0039): the alarms that wait for it are decided in
    /// batches, and a batch with the refused and the undecidable mowers' alarms in it fails
    /// as a whole. Every other alarm of it is then decided alone, as it would have been
    /// without them, and the two faulty ones are rejected on their own.
    @Test(.timeLimit(.minutes(2)))
    func aBatchWithFaultyAlarmsInItFailsNoOtherAlarm() async throws {
      let db = try await TestDatabase.make()
      try await db.importFleet40()
      try await db.pool.withTransaction { tx in try tx.execute(Self.faults) }
      let prefix = uniqueSubjectPrefix()
      var environment = try WorkerProcess.environment(database: db, subjectPrefix: prefix)
      environment["MOWDECK_DATABASE_POOL_SIZE"] = "1"
      environment["MOWDECK_FANOUT_MAX_ATTEMPTS"] = "2"
      let worker = try WorkerProcess("FanoutWorker", environment: environment)
      defer { worker.stop() }
      let subjects = Subjects(prefix: prefix)
      let nats = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "fault-burst-test", logger: TestServers.logger)
      let publisher = try await AlarmPublisher(nats: nats, subjects: subjects, pool: db.pool)

      // Three rounds over 36 mowers: the second and third are suppressed by the cooldown.
      let mowers = (4..<40).map { String(format: "m-7-%04d", $0) }
      var published: [(sequence: UInt64, id: UUID, mower: String)] = []
      for round in 0..<3 {
        for mower in mowers + (round == 1 ? [Self.refused, Self.cursed] : []) {
          let id = UUID()
          let sequence = try await publisher.publish(
            subject: subjects.alarm(mowerID: mower), payload: Self.alarm(id, mower: mower))
          published.append((sequence, id, mower))
        }
      }
      var outcomes: [String: [String]] = [:]
      for alarm in published {
        let decided = try await publisher.waitDecided(
          alarm.sequence, eventID: alarm.id, timeout: .seconds(30))
        outcomes[alarm.mower, default: []].append(decided.outcome)
      }
      for mower in mowers {
        #expect(outcomes[mower] == ["pushed", "suppressed", "suppressed"], "\(mower)")
      }
      #expect(outcomes[Self.refused] == ["rejected"])
      #expect(outcomes[Self.cursed] == ["rejected"])
      #expect(
        try await db.count("SELECT count(*) AS n FROM alarms") == mowers.count * 3)
      #expect(
        try await db.count("SELECT count(*) AS n FROM events WHERE type = 'alarm.rejected'") == 2)
      // The burst was batched, and at least one batch failed because of the two.
      let port = try #require(worker.monitoringPort)
      let metrics = try await runShellOffThePool("curl -s http://127.0.0.1:\(port)/metrics")
      let batches = Self.value(of: "mowdeck_fanout_batch_alarms_count", in: metrics)
      let batched = Self.value(of: "mowdeck_fanout_batch_alarms_sum", in: metrics)
      #expect(batches < batched, "\(metrics)")
      #expect(Self.value(of: "mowdeck_fanout_batches_failed_total", in: metrics) >= 1, "\(metrics)")
      #expect(worker.isRunning)
    }

    /// The value of an unlabelled metric in Prometheus's text format; 0 when absent.
    static func value(of name: String, in metrics: String) -> Double {
      for line in metrics.split(separator: "\n") where line.hasPrefix(name + " ") {
        return Double(line.dropFirst(name.count + 1)) ?? 0
      }
      return 0
    }

    static func alarm(_ id: UUID, mower: String) -> [UInt8] {
      Array(
        JSON.encode([
          "event_id": .string(id.uuidString.lowercased()), "mower_id": .string(mower),
          "kind": "mower_lifted",
          "occurred_at": .string(Timestamp.format(Date())),
        ]).utf8)
    }

    private func rejection(of id: UUID, _ db: TestDatabase) async throws -> AlarmRejected {
      var rejected: AlarmRejected?
      try await eventually(timeout: .seconds(15), "alarm.rejected for \(id)") {
        let story = try await EventLog().story(of: id, pool: db.pool)
        rejected = try story.first { $0.type == "alarm.rejected" }?.decode(AlarmRejected.self)
        return rejected != nil
      }
      return try #require(rejected)
    }

    /// The status `/healthz` of a worker answers (its monitoring port from its log).
    static func health(of worker: WorkerProcess) async throws -> Int {
      guard let port = worker.monitoringPort else { return 0 }
      let status = try await runShellOffThePool(
        "curl -s -o /dev/null -m 3 -w '%{http_code}' http://127.0.0.1:\(port)/healthz")
      return Int(status.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
  }
}
