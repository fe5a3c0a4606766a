import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// The PhotoWorker tests' stack: a schema, a subject prefix, and the processes around them.
extension PhotoProcessTests {
  struct StoreStall {
    let pool: DatabasePool
    let held: Task<Void, any Error>

    func release() async throws {
      try await pool.query("INSERT INTO stall_over VALUES (true)")
      try await held.value
    }
  }

  struct Stack {
    let db: TestDatabase
    let subjects: Subjects
    let environment: [String: String]
    let nats: NATSClient

    init(photoTimeout: Int = 20, settings: [String: String] = [:]) async throws {
      db = try await TestDatabase.make()
      let prefix = uniqueSubjectPrefix()
      subjects = Subjects(prefix: prefix)
      var environment = try WorkerProcess.environment(database: db, subjectPrefix: prefix)
      environment["MOWDECK_NOTIFICATIONS_PHOTO_TIMEOUT_SECONDS"] = String(photoTimeout)
      environment.merge(settings) { $1 }
      self.environment = environment
      nats = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "photo-tests", logger: TestServers.logger)
    }

    /// A PhotoWorker, once it claims: with the short photo windows of these tests, a worker
    /// still starting on a loaded machine would find fresh reservations already too old.
    func photoWorker() async throws -> WorkerProcess {
      let worker = try WorkerProcess("PhotoWorker", environment: environment)
      try await eventually(timeout: .seconds(20), "the PhotoWorker to run") {
        worker.log.contains("photo worker running")
      }
      return worker
    }

    func simulator(_ arguments: [String]) async throws -> WorkerProcess {
      try await WorkerProcess.cameraSimulator(
        arguments: ["--frames", TestServers.repositoryPath("deploy/frames")] + arguments,
        environment: environment)
    }

    /// A camera simulator answering after `latencyMs`, each mower as `behaviours` says
    /// (`photo`, `photo:SIZE`, `asleep`, `oversized`...: the simulator's `--mower` option).
    func simulator(latencyMs: Int, behaviours: [String: String]) async throws -> WorkerProcess {
      try await simulator(
        ["--latency-ms", String(latencyMs)]
          + behaviours.flatMap { ["--mower", "\($0.key)=\($0.value)"] })
    }

    /// Reserves photos as the fan-out does: an alarm row and a pending reservation each.
    @discardableResult
    func reserve(mower: String, count: Int = 1, createdSecondsAgo: Double = 0) async throws
      -> [UUID]
    {
      let images = try await db.reservePhotos(
        count: count, mower: mower, createdSecondsAgo: createdSecondsAgo)
      try nats.publish(subjects.wakePhotos)
      return images
    }

    func pending() async throws -> Int {
      try await db.count("SELECT count(*) AS n FROM photo_reservations WHERE state = 'pending'")
    }

    /// A camera simulator answering every request at once with the 480 KB fixture frame,
    /// and that frame's size.
    func nearLimitCamera() async throws -> (simulator: WorkerProcess, frameBytes: Int) {
      let frame = TestServers.fixture("photos/near-limit.jpg")
      let frames = FileManager.default.temporaryDirectory
        .appendingPathComponent("frames-\(uniqueSubjectPrefix())")
      try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: frame, toPath: frames.appendingPathComponent("near-limit.jpg").path)
      let simulator = try await self.simulator(["--frames", frames.path, "--latency-ms", "0"])
      // The simulator has read its frames by the time it listens.
      try? FileManager.default.removeItem(at: frames)
      let bytes = try FileManager.default.attributesOfItem(atPath: frame)[.size] as? Int ?? 0
      return (simulator, bytes)
    }

    /// Stalls the store: a lock on this test's own photo table, which every photo's insert
    /// waits for, held until `release` (or for 60 s at most, should the test fail first).
    func stallTheStore() async throws -> StoreStall {
      try await db.pool.query("CREATE TABLE stall_over (done boolean)")
      let pool = db.pool
      let held = Task {
        try await pool.withTransaction { tx in
          try tx.query("LOCK TABLE notification_images IN EXCLUSIVE MODE")
          try tx.query(
            """
            DO $$ BEGIN
              WHILE NOT EXISTS (SELECT 1 FROM stall_over)
                AND clock_timestamp() < now() + interval '60 s'
              LOOP PERFORM pg_sleep(0.05); END LOOP;
            END $$
            """)
        }
      }
      try await eventually(timeout: .seconds(10), "the stall to hold the lock") {
        try await db.count(
          """
          SELECT count(*) AS n FROM pg_locks
          WHERE relation = 'notification_images'::regclass AND mode = 'ExclusiveLock' AND granted
          """) == 1
      }
      return StoreStall(pool: pool, held: held)
    }

    /// The worker's `mowdeck_photo_held_bytes` gauge, from its `/metrics`.
    func heldBytes(port: Int) throws -> Int? {
      try metric("mowdeck_photo_held_bytes", port: port)
    }

    /// One unlabelled value from the worker's `/metrics`.
    func metric(_ name: String, port: Int) throws -> Int? {
      let metrics = try runShell("curl -sf http://127.0.0.1:\(port)/metrics")
      let line = metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }
      return line.flatMap { Double($0.split(separator: " ")[1]) }.map { Int($0) }
    }

    /// Each reservation's end: `captured` or the failure reason.
    func outcomes() async throws -> [UUID: String] {
      var outcomes: [UUID: String] = [:]
      for row in try await db.pool.query(
        """
        SELECT r.image_id, r.state, i.failure_reason FROM photo_reservations r
        LEFT JOIN notification_images i USING (image_id)
        """)
      {
        let state = try row.string("state")
        outcomes[try row.uuid("image_id")] =
          state == "failed" ? (try row.optionalString("failure_reason") ?? "?") : state
      }
      return outcomes
    }
  }
}
