import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import FanoutWorker

/// Decisions taken many to a transaction (ADR 0039) against a real PostgreSQL: the same
/// rows and events as one at a time, one transaction for a batch, and a batch that fails
/// writing nothing and failing every alarm of it, so that each is decided again alone.
@Suite struct DecisionBatchTests {
  static let t0 = Date(timeIntervalSince1970: 1_790_000_000)
  static let mowers = (1...5).map { "m-\($0)" }

  /// A schema whose five mowers are each granted to two users, one with an iPhone and an
  /// ntfy topic, one with an FCM phone.
  static func directory() async throws -> (TestDatabase, FanoutStore) {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    for (index, mower) in mowers.enumerated() {
      for user in ["a", "b"] {
        let userID = "\(user)-\(index)"
        try await directory.addUser(id: userID, name: userID)
        try await directory.grant(mowerID: mower, userID: userID)
      }
      _ = try await directory.addDevice(
        userID: "a-\(index)", token: String(repeating: String(index), count: 64),
        environment: "production")
      _ = try await directory.addDevice(userID: "a-\(index)", address: .newNtfyTopic())
      _ = try await directory.addDevice(
        userID: "b-\(index)",
        address: .fcm(token: "fcm-token-\(index)-" + String(repeating: "x", count: 40)))
    }
    let store = FanoutStore(
      pool: db.pool, rules: DecisionRules(configuration: try Configuration.load(from: [:])),
      subjects: Subjects())
    return (db, store)
  }

  static func pending(
    _ kind: String, mower: String, after seconds: Double, id: UUID = UUID(), sequence: UInt64
  ) -> PendingAlarm {
    let occurred = t0.addingTimeInterval(seconds)
    let payload = JSON.encode([
      "event_id": .string(id.uuidString), "mower_id": .string(mower), "kind": .string(kind),
      "occurred_at": .string(Timestamp.format(occurred)),
    ])
    guard
      case .success(let alarm) = IngressAlarm.parse(
        subject: "notifications.alarms.\(mower)", subjects: Subjects(), payload: Array(payload.utf8)
      )
    else { fatalError("a test alarm that does not read") }
    return PendingAlarm(
      alarm: alarm, streamSequence: sequence, receivedAt: occurred.addingTimeInterval(0.5),
      storedAt: occurred.addingTimeInterval(0.5))
  }

  /// Waits until a statement is blocked by `holder`'s locks; answers the holder's backend.
  static func waitUntilBlocked(by holder: PostgresConnection, in db: TestDatabase) async throws
    -> Int
  {
    let holderPID = try await holder.backendPID()
    try await eventually(timeout: .seconds(10), "a decision waiting on the holder's lock") {
      try await db.count(
        """
        SELECT count(*) AS n FROM pg_stat_activity
        WHERE pg_blocking_pids(pid) @> ARRAY[\(holderPID)::int]
        """) > 0
    }
    return holderPID
  }

  /// Three rounds over the five mowers: thefts (pushed, photos), thefts again within the
  /// cooldown (suppressed) and errors (pushed, the photo interval over).
  static let rounds: [(kind: String, after: Double)] = [
    ("mower_lifted", 0), ("geofence_exit", 30), ("mower_stuck", 90),
  ]

  /// What the tables say about the decisions, without the random ids.
  static func summary(_ db: TestDatabase) async throws -> [String] {
    let queries: [SQL] = [
      """
      SELECT a.event_id::text || ' ' || a.decision || ' ' || coalesce(a.photo, '-') || ' '
             || a.recipients || ' ' || a.decided_on::text AS line FROM alarms a
      """,
      """
      SELECT n.event_id::text || ' ' || n.user_id || ' ' || (n.image_id IS NOT NULL)::text
        AS line FROM notifications n
      """,
      """
      SELECT n.event_id::text || ' ' || d.platform || ' ' || d.attempts || ' '
             || (d.lease_token IS NOT NULL)::text || ' ' || d.state AS line
      FROM deliveries d JOIN notifications n USING (notification_id)
      """,
      """
      SELECT m.mower_id || ' ' || coalesce(m.last_theft_push_at::text, '-') || ' '
             || coalesce(m.last_error_push_at::text, '-') || ' '
             || coalesce(m.last_photo_at::text, '-') || ' ' || m.photo_times::text AS line
      FROM mower_state m
      """,
      "SELECT event_id::text || ' ' || state AS line FROM photo_reservations",
      "SELECT correlation_id::text || ' ' || outcome || ' ' || stream_seq AS line FROM ingress_messages",
      "SELECT correlation_id::text || ' ' || type AS line FROM events",
    ]
    var lines: [String] = []
    for query in queries {
      lines += try await db.pool.query(query).map { try $0.string("line") }.sorted()
    }
    return lines
  }

  @Test func aBatchWritesWhatTheSameAlarmsDecidedOneAtATimeWrite() async throws {
    let (alone, aloneStore) = try await Self.directory()
    let (batched, batchedStore) = try await Self.directory()
    var sequence: UInt64 = 0
    for round in Self.rounds {
      var batch = DecisionBatch()
      var aloneKinds: [FanoutOutcome.Kind] = []
      for mower in Self.mowers {
        sequence += 1
        let alarm = Self.pending(round.kind, mower: mower, after: round.after, sequence: sequence)
        let added = batch.add(alarm)
        #expect(added)
        aloneKinds.append(try await aloneStore.decideAlone(alarm).kind)
      }
      let outcomes = try await batchedStore.decide(batch)
      #expect(outcomes.map(\.kind) == aloneKinds)
      #expect(outcomes.map(\.correlationID) == batch.alarms.map(\.alarm.eventID))
    }
    let expected = try await Self.summary(alone)
    #expect(expected.count > 100)
    #expect(try await Self.summary(batched) == expected)
    // The batches were three transactions, each writing its five alarms.
    #expect(try await batched.count("SELECT count(DISTINCT xmin::text) AS n FROM alarms") == 3)
    #expect(try await alone.count("SELECT count(DISTINCT xmin::text) AS n FROM alarms") == 15)
  }

  @Test func aBatchHoldsOneAlarmPerMowerAndPerEventID() {
    var batch = DecisionBatch()
    let id = UUID()
    let added = [
      batch.add(Self.pending("mower_lifted", mower: "m-1", after: 0, id: id, sequence: 1)),
      // The same mower: its state is the first alarm's to change.
      batch.add(Self.pending("mower_stuck", mower: "m-1", after: 1, sequence: 2)),
      // The same event id on another mower: a duplicate only once the first is written.
      batch.add(Self.pending("mower_lifted", mower: "m-2", after: 0, id: id, sequence: 3)),
      batch.add(Self.pending("mower_lifted", mower: "m-2", after: 0, sequence: 4)),
    ]
    #expect(added == [true, false, false, true])
    #expect(batch.count == 2)
  }

  @Test func anAlarmAlreadyDecidedIsADuplicateInABatch() async throws {
    let (_, store) = try await Self.directory()
    let first = Self.pending("mower_lifted", mower: "m-1", after: 0, sequence: 1)
    #expect(try await store.decideAlone(first).kind == .pushed)
    var batch = DecisionBatch()
    _ = batch.add(
      Self.pending("mower_lifted", mower: "m-2", after: 0, id: first.alarm.eventID, sequence: 2))
    _ = batch.add(Self.pending("mower_lifted", mower: "m-3", after: 0, sequence: 3))
    #expect(try await store.decide(batch).map(\.kind) == [.duplicate, .pushed])
  }

  /// The batcher with one connection: while the first alarm's transaction waits on a row
  /// the test holds, the next five queue and go together. With `failing` one of them is
  /// refused by a trigger: the batch writes nothing, each of the five gets `BatchFailed`,
  /// and decided alone again, four are pushed and the refused one fails by itself.
  @Test(arguments: [false, true])
  func alarmsWaitingForAConnectionGoInOneBatch(failing: Bool) async throws {
    let (db, store) = try await Self.directory()
    if failing {
      try await db.pool.withTransaction { tx in
        try tx.execute(
          """
          CREATE FUNCTION refuse_m3() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.mower_id = 'm-3' THEN
              RAISE EXCEPTION 'value refused' USING ERRCODE = '22023';
            END IF;
            RETURN NEW;
          END $$;
          CREATE TRIGGER refuse_m3 BEFORE INSERT ON alarms
            FOR EACH ROW EXECUTE FUNCTION refuse_m3();
          """)
      }
    }
    try await db.pool.query("INSERT INTO mower_state (mower_id) VALUES ('m-1')")
    let metrics = Metrics()
    let batcher = DecisionBatcher(store: store, metrics: metrics, maxConcurrent: 1, maxBatch: 64)
    let holder = try await PostgresConnection.connect(url: db.url, applicationName: "holder")
    defer { holder.close() }
    try await holder.execute("BEGIN; SELECT 1 FROM mower_state WHERE mower_id = 'm-1' FOR UPDATE")

    let first = Task {
      try await batcher.decide(Self.pending("mower_lifted", mower: "m-1", after: 0, sequence: 1))
    }
    _ = try await Self.waitUntilBlocked(by: holder, in: db)
    var queued: [Task<FanoutOutcome, any Error>] = []
    for (index, mower) in Self.mowers.dropFirst().enumerated() {
      let alarm = Self.pending("mower_lifted", mower: mower, after: 0, sequence: UInt64(index + 2))
      queued.append(Task { try await batcher.decide(alarm) })
    }
    try await Task.sleep(for: .milliseconds(300))
    try await holder.execute("COMMIT")
    #expect(try await first.value.kind == .pushed)

    var failed: [PendingAlarm] = []
    for (task, mower) in zip(queued, Self.mowers.dropFirst()) {
      do {
        #expect(try await task.value.kind == .pushed)
        #expect(!failing)
      } catch let error as GroupCommitFailed {
        #expect(failing)
        #expect(error.groupSize == 4)
        failed.append(Self.pending("mower_lifted", mower: mower, after: 0, sequence: 10))
      }
    }
    let rendered = metrics.render()
    #expect(rendered.contains("mowdeck_fanout_batch_alarms_bucket{le=\"2.0\"} 1"), "\(rendered)")
    #expect(rendered.contains("mowdeck_fanout_batch_alarms_count 2"), "\(rendered)")
    let written = try await db.count("SELECT count(*) AS n FROM alarms")
    #expect(written == (failing ? 1 : 5))
    guard failing else { return }
    // Alone, each is decided on its own merits.
    var refused = 0
    for alarm in failed {
      do {
        #expect(try await store.decideAlone(alarm).kind == .pushed)
      } catch let error as DatabaseError {
        #expect(error.sqlState == "22023")
        #expect(alarm.alarm.mowerID == "m-3")
        refused += 1
      }
    }
    #expect(refused == 1)
    #expect(try await db.count("SELECT count(*) AS n FROM alarms") == 4)
  }

  /// The replica's one decision transaction (ADR 0049) is held up by a mower locked
  /// elsewhere for the lock timeout only: the locked mower's decision fails as an outage
  /// (retried by its lane), and the alarms waiting behind it are decided while the lock is
  /// still held.
  // Without the lock timeout the others would wait for the holder, which never lets go.
  @Test(.timeLimit(.minutes(1)))
  func aMowerLockedElsewhereHoldsUpTheOneTransactionForTheLockTimeoutOnly() async throws {
    let (db, store) = try await Self.directory()
    try await db.pool.query("INSERT INTO mower_state (mower_id) VALUES ('m-1')")
    let batcher = DecisionBatcher(
      store: store, metrics: Metrics(), maxConcurrent: 1, maxBatch: 64)
    let holder = try await PostgresConnection.connect(url: db.url, applicationName: "holder")
    defer { holder.close() }
    try await holder.execute("BEGIN; SELECT 1 FROM mower_state WHERE mower_id = 'm-1' FOR UPDATE")
    let started = ContinuousClock.now
    let locked = Task {
      try await batcher.decide(Self.pending("mower_lifted", mower: "m-1", after: 0, sequence: 1))
    }
    let holderPID = try await Self.waitUntilBlocked(by: holder, in: db)
    let others = Self.mowers.dropFirst().enumerated().map { index, mower in
      let alarm = Self.pending("mower_lifted", mower: mower, after: 0, sequence: UInt64(index + 2))
      return Task { try await batcher.decide(alarm) }
    }
    for other in others { #expect(try await other.value.kind == .pushed) }
    let waited = ContinuousClock.now - started
    #expect(waited >= FanoutStore.lockTimeout, "\(waited)")
    #expect(waited < FanoutStore.lockTimeout + .seconds(3), "\(waited)")
    await #expect {
      _ = try await locked.value
    } throws: { error in
      (error as? DatabaseError)?.sqlState == "55P03"
        && (error as? DatabaseError)?.failureClass == .outage
    }
    // Still held: the others did not wait for the holder.
    #expect(
      try await db.count(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = \(holderPID) AND state = 'idle in transaction'"
      ) == 1)
    try await holder.execute("COMMIT")
    #expect(
      try await store.decideAlone(Self.pending("mower_lifted", mower: "m-1", after: 0, sequence: 9))
        .kind == .pushed)
    #expect(try await db.count("SELECT count(*) AS n FROM alarms") == 5)
  }
}
