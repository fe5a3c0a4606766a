import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Run one after another with the other suites of `EndToEndTests`: each starts a pipeline of
/// processes, and two at once starve the in-process servers of the other tests.
extension EndToEndTests {
  /// Each worker stopped with SIGTERM while it has work in hand (docs/interfaces.md,
  /// `MOWDECK_SHUTDOWN_GRACE_SECONDS`): it takes no new work, finishes what it holds, and
  /// exits with status 0 within the grace period; nothing is lost or done twice. A second
  /// signal ends a worker at once.
  @Suite struct GracefulShutdownTests {
    static let grace = 5

    static func environment(_ db: TestDatabase) throws -> [String: String] {
      var environment = try WorkerProcess.environment(
        database: db, subjectPrefix: uniqueSubjectPrefix())
      environment["MOWDECK_SHUTDOWN_GRACE_SECONDS"] = String(grace)
      environment["MOWDECK_FANOUT_ACK_WAIT_SECONDS"] = "30"
      return environment
    }

    /// SIGTERM and the wait for the exit (polled, holding no thread); the status and how
    /// long it took.
    static func stop(_ worker: WorkerProcess) async throws -> (status: Int32, seconds: Double) {
      let started = ContinuousClock.now
      worker.signal(SIGTERM)
      let status = try await worker.wait(timeout: .seconds(grace + 5))
      return (status, (ContinuousClock.now - started).seconds)
    }

    @Test(.timeLimit(.minutes(2)))
    func aFanoutReplicaStoppedMidStreamLosesAndDoublesNothing() async throws {
      let db = try await TestDatabase.make()
      try await db.importFleet40()
      let environment = try Self.environment(db)
      let workers = try (0..<2).map { _ in
        try WorkerProcess("FanoutWorker", environment: environment)
      }
      defer { for worker in workers { worker.stop() } }
      let subjects = Subjects(prefix: environment["MOWDECK_NATS_SUBJECT_PREFIX"]!)
      let nats = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "shutdown-test", logger: TestServers.logger)
      let publisher = try await AlarmPublisher(nats: nats, subjects: subjects, pool: db.pool)
      let count = 400
      let publishing = Task {
        for index in 0..<count {
          let mower = "m-7-00\(10 + index % 30)"
          let alarm = AlarmMessage(mowerID: mower, kind: "battery_low", occurredAt: Date())
          _ = try await publisher.publish(
            subject: subjects.alarm(mowerID: mower), payload: alarm.encoded)
          try await Task.sleep(for: .milliseconds(5))
        }
      }
      try await eventually(timeout: .seconds(20), "alarms flowing") {
        try await db.count("SELECT count(*) AS n FROM ingress_messages") > 50
      }
      let stopped = try await Self.stop(workers[0])
      #expect(stopped.status == 0)
      #expect(stopped.seconds < Double(Self.grace))
      try await publishing.value
      // Well within the 30 s ack wait: nothing waits for a redelivery.
      try await eventually(timeout: .seconds(20), "every alarm decided") {
        try await db.count("SELECT count(*) AS n FROM ingress_messages") == count
      }
      #expect(
        try await db.count(
          "SELECT count(*) AS n FROM events WHERE type = 'alarm.received'") == count)
      #expect(workers[0].log.contains("stopping: no new work"))
      #expect(workers[1].isRunning)
    }

    @Test(.timeLimit(.minutes(2)))
    func aPhotoWorkerStoppedWithRequestsInFlightStoresThemAll() async throws {
      let db = try await TestDatabase.make()
      let environment = try Self.environment(db)
      let simulator = try await WorkerProcess.cameraSimulator(
        arguments: [
          "--frames", TestServers.repositoryPath("deploy/frames"), "--latency-ms", "1500",
        ],
        environment: environment)
      defer { simulator.stop() }
      let worker = try WorkerProcess("PhotoWorker", environment: environment)
      defer { worker.stop() }
      let images = try await db.reservePhotos(count: 10, mowerPrefix: "shut-")
      try await eventually(timeout: .seconds(20), "every request in flight") {
        try await db.count("SELECT count(*) AS n FROM events WHERE type = 'photo.requested'") == 10
      }
      let stopped = try await Self.stop(worker)
      #expect(stopped.status == 0)
      #expect(stopped.seconds < Double(Self.grace))
      // On failure, what became of each request and the worker's last words (seen once in
      // a full parallel run, never alone).
      let outcomes = try await db.pool.query(
        """
        SELECT r.state || coalesce(':' || i.failure_reason, '') AS outcome FROM photo_reservations r
        LEFT JOIN notification_images i ON i.image_id = r.image_id ORDER BY 1
        """
      ).map { try $0.string("outcome") }
      let evidence = Comment(
        rawValue: "\(outcomes); log: \(worker.log.suffix(3000))")
      #expect(
        try await db.count(
          "SELECT count(*) AS n FROM photo_reservations WHERE state = 'captured'") == images.count,
        evidence)
      #expect(
        try await db.count("SELECT count(*) AS n FROM events WHERE type = 'photo.captured'")
          == images.count)
    }

    @Test(.timeLimit(.minutes(2)))
    func anAPNsWorkerStoppedWithPushesInFlightSendsEachOnce() async throws {
      let db = try await TestDatabase.make()
      try await db.importFleet40()
      var environment = try Self.environment(db)
      let record = FileManager.default.temporaryDirectory.appendingPathComponent(
        "shutdown-apns-\(UUID().uuidString.prefix(8)).jsonl")
      let behaviour = FileManager.default.temporaryDirectory.appendingPathComponent(
        "shutdown-behaviour-\(UUID().uuidString.prefix(8)).json")
      try Data(#"{"*": "slow:1500"}"#.utf8).write(to: behaviour)
      let sandbox = try await APNsSandboxHarness.start(
        environment: environment, record: record, behaviourFile: behaviour)
      defer { sandbox.process.stop() }
      environment.merge(sandbox.workerEnvironment) { $1 }
      let fanout = try WorkerProcess("FanoutWorker", environment: environment)
      defer { fanout.stop() }
      let apns = try WorkerProcess("APNsWorker", environment: environment)
      defer { apns.stop() }
      let subjects = Subjects(prefix: environment["MOWDECK_NATS_SUBJECT_PREFIX"]!)
      let nats = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "shutdown-apns", logger: TestServers.logger)
      let publisher = try await AlarmPublisher(nats: nats, subjects: subjects, pool: db.pool)
      for mower in ["m-7-0008", "m-7-0013", "m-7-0029", "m-7-0034"] {
        let alarm = AlarmMessage(mowerID: mower, kind: "battery_low", occurredAt: Date())
        _ = try await publisher.publishAndWait(
          subject: subjects.alarm(mowerID: mower), payload: alarm.encoded, timeout: .seconds(10))
      }
      let deliveries = try await db.count("SELECT count(*) AS n FROM deliveries")
      #expect(deliveries >= 10)
      // Every delivery in the worker's hand (leased, still queued: its push is at the sandbox,
      // answered 1.5 s later) before the signal. One not yet claimed would rightly be left
      // for another worker, and the counts below would not say whether the worker dropped it.
      try await eventually(timeout: .seconds(10), "every push in flight") {
        let unclaimed = try await db.count(
          """
          SELECT count(*) AS n FROM deliveries WHERE state = 'queued'
            AND (lease_token IS NULL OR lease_expires_at <= now())
          """)
        let inFlight = try await db.count(
          "SELECT count(*) AS n FROM deliveries WHERE state = 'queued' AND lease_token IS NOT NULL")
        return unclaimed == 0 && inFlight > 0
      }
      let stopped = try await Self.stop(apns)
      #expect(stopped.status == 0)
      #expect(stopped.seconds < Double(Self.grace))
      #expect(
        try await db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'")
          == deliveries)
      let pushes = ((try? String(contentsOf: record, encoding: .utf8)) ?? "")
        .split(separator: "\n").count
      #expect(pushes == deliveries)
    }

    @Test(.timeLimit(.minutes(1)))
    func aSecondSignalEndsAWorkerAtOnce() async throws {
      let db = try await TestDatabase.make()
      var environment = try Self.environment(db)
      environment["MOWDECK_SHUTDOWN_GRACE_SECONDS"] = "30"
      let simulator = try WorkerProcess(
        "GatewaySimulator",
        arguments: [
          "--frames", TestServers.repositoryPath("deploy/frames"), "--latency-ms", "15000",
        ],
        environment: environment)
      defer { simulator.stop() }
      let worker = try WorkerProcess("PhotoWorker", environment: environment)
      _ = try await db.reservePhotos(count: 1, mowerPrefix: "slow-")
      try await eventually(timeout: .seconds(20), "the request in flight") {
        try await db.count("SELECT count(*) AS n FROM events WHERE type = 'photo.requested'") == 1
      }
      let started = ContinuousClock.now
      worker.signal(SIGTERM)
      try await eventually(timeout: .seconds(5), "the first signal taken") {
        worker.log.contains("stopping: no new work")
      }
      worker.signal(SIGTERM)
      let status = try await worker.wait(timeout: .seconds(5))
      #expect(status == 128 + SIGTERM)
      #expect(ContinuousClock.now - started < .seconds(10))
    }
  }
}
