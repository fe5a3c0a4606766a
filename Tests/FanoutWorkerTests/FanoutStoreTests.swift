import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import FanoutWorker

/// The fan-out's transaction against a real PostgreSQL: boundaries, idempotency, and what
/// each decision leaves in the tables and the event log.
@Suite struct FanoutStoreTests {
  static let t0 = Date(timeIntervalSince1970: 1_790_000_000)

  /// A store on a fresh schema with one mower `m-1`, granted to `users` users with one
  /// device each.
  struct Fixture {
    let db: TestDatabase
    let store: FanoutStore
    var sequence: UInt64 = 0

    init(users: Int = 1, handoffGate: HandoffGate = HandoffGate()) async throws {
      db = try await TestDatabase.make()
      store = FanoutStore(
        pool: db.pool, rules: DecisionRules(configuration: try Configuration.load(from: [:])),
        subjects: Subjects(), handoffGate: handoffGate)
      let directory = Directory(pool: db.pool)
      for index in 0..<users {
        try await directory.addUser(id: "u-\(index)", name: "User \(index)")
        try await directory.grant(mowerID: "m-1", userID: "u-\(index)")
        try await directory.addDevice(
          userID: "u-\(index)", token: String(repeating: String(index % 10), count: 64),
          environment: "production")
      }
    }

    mutating func send(
      _ kind: String, after seconds: Double, mower: String = "m-1", id: UUID = UUID(),
      receivedAt: Date? = nil, storedAt: Date? = nil
    ) async throws -> FanoutOutcome {
      sequence += 1
      let occurred = FanoutStoreTests.t0.addingTimeInterval(seconds)
      let payload = JSON.encode([
        "event_id": .string(id.uuidString), "mower_id": .string(mower), "kind": .string(kind),
        "occurred_at": .string(Timestamp.format(occurred)),
      ])
      return try await store.handle(
        subject: "notifications.alarms.\(mower)", payload: Array(payload.utf8),
        streamSequence: sequence, receivedAt: receivedAt ?? occurred.addingTimeInterval(0.5),
        storedAt: storedAt ?? receivedAt ?? occurred.addingTimeInterval(0.5))
    }

    func events(_ id: UUID) async throws -> [String] {
      try await EventLog().story(of: id, pool: db.pool).map(\.type)
    }
  }

  @Test(arguments: [(299.0, FanoutOutcome.Kind.suppressed), (300, .pushed), (301, .pushed)])
  func errorCooldownBoundary(after: Double, expected: FanoutOutcome.Kind) async throws {
    var fixture = try await Fixture()
    #expect(try await fixture.send("mower_stuck", after: 0).kind == .pushed)
    let id = UUID()
    #expect(try await fixture.send("mower_stuck", after: after, id: id).kind == expected)
    let story = try await fixture.events(id)
    #expect(story.first == "alarm.received")
    #expect(story.contains("alarm.suppressed") == (expected == .suppressed))
  }

  @Test(arguments: [(599.0, FanoutOutcome.Kind.suppressed), (600, .pushed)])
  func theftCooldownBoundary(after: Double, expected: FanoutOutcome.Kind) async throws {
    var fixture = try await Fixture()
    #expect(try await fixture.send("mower_lifted", after: 0).kind == .pushed)
    #expect(try await fixture.send("geofence_exit", after: after).kind == expected)
  }

  @Test(arguments: [(59.0, "skipped:min_interval"), (60, "reserved")])
  func photoIntervalBoundary(after: Double, photo: String) async throws {
    var fixture = try await Fixture()
    #expect(try await fixture.send("mower_lifted", after: 0).detail == "reserved")
    // An error alarm: its own cooldown is not running, only the photo interval is.
    #expect(try await fixture.send("mower_stuck", after: after).detail == photo)
  }

  @Test func theSeventhPhotoIn24HoursIsSkippedAndTheWindowRolls() async throws {
    var fixture = try await Fixture()
    var photos: [String?] = []
    for hour in 0..<7 {
      photos.append(try await fixture.send("mower_lifted", after: Double(hour) * 3600).detail)
    }
    #expect(photos == Array(repeating: "reserved", count: 6) + ["skipped:daily_limit"])
    // 24 h after the first reservation it leaves the window: a photo again.
    #expect(try await fixture.send("mower_lifted", after: 86_400).detail == "reserved")
    #expect(
      try await fixture.send("mower_lifted", after: 86_400 + 3600 - 1).detail
        == "skipped:daily_limit")
  }

  @Test func aFutureOccurredAtIsDecidedOnTheReceiveTime() async throws {
    var fixture = try await Fixture()
    let received = Self.t0
    #expect(
      try await fixture.send("mower_lifted", after: 10_000, receivedAt: received).kind == .pushed)
    // Decided on `received`, so 599 s after it the cooldown still holds.
    #expect(try await fixture.send("mower_lifted", after: 599).kind == .suppressed)
    let decided = try await fixture.db.pool.query(
      "SELECT min(decided_on) AS t FROM alarms")[0].date("t")
    #expect(decided == received)
  }

  @Test func aPushWritesNotificationsDeliveriesAndTheReservationInOneGo() async throws {
    var fixture = try await Fixture(users: 3)
    let id = UUID()
    let outcome = try await fixture.send("mower_stuck", after: 0, id: id)
    #expect(outcome.kind == .pushed)
    #expect(outcome.handoff?.deliveries.count == 3)
    #expect(outcome.reservedImage)
    let db = fixture.db
    #expect(
      try await db.count("SELECT count(*) AS n FROM notifications WHERE event_id = \(id)") == 3)
    #expect(try await db.count("SELECT count(DISTINCT inbox_item_id) AS n FROM notifications") == 3)
    #expect(try await db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'queued'") == 3)
    #expect(
      try await db.count(
        "SELECT count(*) AS n FROM notifications n JOIN photo_reservations r USING (image_id)") == 3
    )
    let story = try await fixture.events(id)
    #expect(story.filter { $0 == "notification.created" }.count == 3)
    #expect(story.filter { $0 == "delivery.queued" }.count == 3)
    #expect(story.last == "image.reserved")
  }

  /// The deliveries are written leased, and the handoff carries that lease and everything
  /// the push needs, so the APNs worker can send without claiming (ADR 0016).
  @Test func aPushIsHandedOffWithTheLeaseItsDeliveriesWereWrittenWith() async throws {
    var fixture = try await Fixture(users: 2)
    let id = UUID()
    // A stream whose clock runs an hour ahead: the receipt is the transaction's time.
    let handoff = try #require(
      try await fixture.send(
        "mower_lifted", after: 0, id: id, storedAt: Date().addingTimeInterval(3600)
      ).handoff)
    #expect(handoff.eventID == id)
    #expect(handoff.kind == "mower_lifted")
    #expect(
      Set(handoff.deliveries.map(\.token)) == [
        String(repeating: "0", count: 64), String(repeating: "1", count: 64),
      ])
    let rows = try await fixture.db.pool.query(
      """
      SELECT d.delivery_id, d.lease_token, d.attempts, d.created_at,
             extract(epoch FROM d.lease_expires_at - d.created_at) AS lease_s,
             v.registered_at
      FROM deliveries d JOIN devices v USING (device_id) ORDER BY v.token
      """)
    #expect(try rows.map { try $0.uuid("delivery_id") } == handoff.deliveries.map(\.deliveryID))
    for (row, delivery) in zip(rows, handoff.deliveries) {
      #expect(try row.int("lease_token") == Int(handoff.leaseToken))
      #expect(try row.int("attempts") == 1)
      #expect(abs(try row.date("created_at").timeIntervalSince(handoff.createdAt)) < 0.000_001)
      #expect(try row.optionalDouble("lease_s") == Double(DeliveryHandoff.leaseSeconds))
      #expect(
        abs(try row.date("registered_at").timeIntervalSince(delivery.deviceRegisteredAt)) < 0.000_01
      )
    }
    // What travels over NATS decodes to the same handoff.
    #expect(try DeliveryHandoff.decode(handoff.encoded) == handoff)
  }

  /// An alarm's deliveries are as old as the alarm's receipt by the stream, not as the
  /// decision: time spent waiting in JetStream or for a batch counts towards alarm-to-push.
  @Test func deliveriesAreAsOldAsTheAlarmsReceiptByTheStream() async throws {
    var fixture = try await Fixture(users: 2)
    let id = UUID()
    let stored = Date().addingTimeInterval(-42)
    let handoff = try #require(
      try await fixture.send("mower_lifted", after: 0, id: id, storedAt: stored).handoff)
    #expect(abs(handoff.createdAt.timeIntervalSince(stored)) < 0.000_001)
    let rows = try await fixture.db.pool.query(
      """
      SELECT d.created_at, a.received_at FROM deliveries d
      JOIN notifications n USING (notification_id) JOIN alarms a USING (event_id)
      WHERE a.event_id = \(id)
      """)
    #expect(rows.count == 2)
    for row in rows {
      #expect(abs(try row.date("created_at").timeIntervalSince(stored)) < 0.000_001)
      #expect(abs(try row.date("received_at").timeIntervalSince(stored)) < 0.000_001)
    }
  }

  /// A handoff no worker took is released: unleased (so the next claim takes it), its
  /// first attempt undone; a release carrying another lease token changes nothing.
  @Test func aReleasedHandoffIsUnleasedWithItsAttemptUndone() async throws {
    var fixture = try await Fixture(users: 2)
    let handoff = try #require(try await fixture.send("mower_lifted", after: 0).handoff)
    let stale = DeliveryHandoff(
      leaseToken: handoff.leaseToken + 1, eventID: handoff.eventID, createdAt: handoff.createdAt,
      kind: handoff.kind, mowerName: nil, reason: nil, imageID: nil,
      deliveries: handoff.deliveries)
    try await fixture.store.release(stale)
    let leased: SQL =
      "SELECT count(*) AS n FROM deliveries WHERE lease_token IS NOT NULL AND attempts = 1"
    #expect(try await fixture.db.count(leased) == 2)
    try await fixture.store.release(handoff)
    #expect(try await fixture.db.count(leased) == 0)
    #expect(
      try await fixture.db.count(
        "SELECT count(*) AS n FROM deliveries WHERE lease_expires_at IS NULL AND attempts = 0") == 2
    )
  }

  /// After the APNs stage refused an offer, decisions leave their APNs deliveries for the
  /// claims for the gate's pause (ADR 0046): unleased, no attempt counted, no handoff; the
  /// first decision after the pause is handed off again.
  @Test func whileHandoffsArePausedAPNsDeliveriesWaitForClaims() async throws {
    var fixture = try await Fixture(users: 2)
    fixture.store.handoffGate.refused()
    let paused = try await fixture.send("mower_lifted", after: 0)
    #expect(paused.kind == .pushed)
    #expect(paused.handoff == nil)
    #expect(paused.handoffPaused)
    #expect(paused.queuedForClaims)
    let queued: SQL =
      "SELECT count(*) AS n FROM deliveries WHERE lease_token IS NULL AND attempts = 0"
    #expect(try await fixture.db.count(queued) == 2)

    try await Task.sleep(for: fixture.store.handoffGate.pause + .milliseconds(50))
    let again = try await fixture.send("mower_stuck", after: 1)
    let handoff = try #require(again.handoff)
    #expect(handoff.deliveries.count == 2)
    #expect(!again.handoffPaused)
    #expect(!again.queuedForClaims)
    #expect(try await fixture.db.count(queued) == 2)
  }

  @Test func aMowerWithoutRecipientsIsPushedToNobodyAndTakesNoPhoto() async throws {
    var fixture = try await Fixture()
    let outcome = try await fixture.send("mower_lifted", after: 0, mower: "m-nobody")
    #expect(outcome.kind == .pushed)
    #expect(outcome.detail == "skipped:no_recipients")
    #expect(outcome.handoff == nil)
  }

  @Test func theSameEventIDIsHandledOnce() async throws {
    var fixture = try await Fixture()
    let id = UUID()
    #expect(try await fixture.send("mower_stuck", after: 0, id: id).kind == .pushed)
    #expect(try await fixture.send("mower_stuck", after: 0, id: id).kind == .duplicate)
    #expect(try await fixture.events(id).filter { $0 == "alarm.received" }.count == 1)
    #expect(try await fixture.db.count("SELECT count(*) AS n FROM deliveries") == 1)
  }

  @Test func aRedeliveredMessageChangesNothing() async throws {
    let fixture = try await Fixture()
    let payload = Array(
      JSON.encode([
        "event_id": .string(UUID().uuidString), "mower_id": "m-1", "kind": "mower_lifted",
        "occurred_at": .string(Timestamp.format(Self.t0)),
      ]).utf8)
    let garbage = Array("not json".utf8)
    for _ in 0..<2 {
      _ = try await fixture.store.handle(
        subject: "notifications.alarms.m-1", payload: payload, streamSequence: 7,
        receivedAt: Self.t0, storedAt: Self.t0)
      _ = try await fixture.store.handle(
        subject: "notifications.alarms.m-1", payload: garbage, streamSequence: 8,
        receivedAt: Self.t0, storedAt: Self.t0)
    }
    let again = try await fixture.store.handle(
      subject: "notifications.alarms.m-1", payload: garbage, streamSequence: 8, receivedAt: Self.t0,
      storedAt: Self.t0)
    #expect(again.kind == .alreadyHandled)
    #expect(
      try await fixture.db.count("SELECT count(*) AS n FROM events WHERE type = 'alarm.rejected'")
        == 1)
    #expect(
      try await fixture.db.count("SELECT count(*) AS n FROM events WHERE type = 'alarm.received'")
        == 1)
  }

  @Test func aRejectionIsRecordedWithItsReasonAndCorrelatedByTheEventIDWhenThereIsOne() async throws
  {
    let fixture = try await Fixture()
    let id = UUID()
    let payload = JSON.encode([
      "event_id": .string(id.uuidString), "mower_id": "m-1", "kind": "mower_exploded",
      "occurred_at": .string(Timestamp.format(Self.t0)),
    ])
    let outcome = try await fixture.store.handle(
      subject: "notifications.alarms.m-1", payload: Array(payload.utf8), streamSequence: 1,
      receivedAt: Self.t0, storedAt: Self.t0)
    #expect(outcome.kind == .rejected)
    let story = try await EventLog().story(of: id, pool: fixture.db.pool)
    #expect(story.map(\.type) == ["alarm.rejected"])
    #expect(try story.first?.decode(AlarmRejected.self).reason == "unknown_kind")
  }

  /// Two "replicas" deciding one mower's alarms at the same moment: the row lock makes the
  /// budget global, so no more than six photos are ever reserved.
  @Test func concurrentDecisionsAboutOneMowerKeepTheBudget() async throws {
    let fixture = try await Fixture()
    let replicaB = FanoutStore(
      pool: DatabasePool(url: fixture.db.url, applicationName: "replica-b", maxConnections: 4),
      rules: fixture.store.rules, subjects: Subjects())
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<20 {
        let store = index.isMultiple(of: 2) ? fixture.store : replicaB
        group.addTask {
          let payload = JSON.encode([
            "event_id": .string(UUID().uuidString), "mower_id": "m-1", "kind": "mower_stuck",
            "occurred_at": .string(
              Timestamp.format(Self.t0.addingTimeInterval(Double(index) * 400))),
          ])
          _ = try await store.handle(
            subject: "notifications.alarms.m-1", payload: Array(payload.utf8),
            streamSequence: UInt64(100 + index), receivedAt: Date(), storedAt: Date())
        }
      }
      try await group.waitForAll()
    }
    #expect(try await fixture.db.count("SELECT count(*) AS n FROM alarms") == 20)
    #expect(try await fixture.db.count("SELECT count(*) AS n FROM photo_reservations") <= 6)
  }
}
