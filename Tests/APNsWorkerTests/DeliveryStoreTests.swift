import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import APNsWorker

/// Outcomes written several to a transaction: each still fenced by its own lease, each
/// dead device switched off once, and a lone outcome written as soon as it arrives.
@Suite struct DeliveryStoreTests {
  /// One alarm for user u-1 with `devices` devices, one queued delivery each.
  static func queuedDeliveries(devices: Int, in db: TestDatabase) async throws -> DeliveryStore {
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u-1", name: "Owner")
    try await directory.grant(mowerID: "m-1", userID: "u-1")
    for n in 0..<devices {
      _ = try await directory.addDevice(
        userID: "u-1", token: String(repeating: "ab", count: 24) + String(format: "%016x", n),
        environment: "production")
    }
    try await alarm(kind: "mower_stuck", alarmClass: "error", in: db)
    return DeliveryStore(pool: db.pool, leaseSeconds: 30)
  }

  /// One more pushed alarm of mower m-1 for user u-1: a queued delivery to every device.
  static func alarm(kind: String, alarmClass: String, in db: TestDatabase) async throws {
    try await db.pool.query(
      """
      WITH alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            decision, photo, recipients)
        VALUES (gen_random_uuid(), 'm-1', \(kind), \(alarmClass), now(), now(), 'pushed', 'none', 1)
        RETURNING event_id
      ), notification AS (
        INSERT INTO notifications (notification_id, event_id, user_id)
        SELECT gen_random_uuid(), event_id, 'u-1' FROM alarm RETURNING notification_id
      )
      INSERT INTO deliveries (notification_id, device_id)
      SELECT notification_id, device_id FROM notification, devices
      """)
  }

  static let deadToken = DeliveryStore.Outcome.failed(
    status: 410, reason: "Unregistered", deactivateDevice: true, apnsTimestamp: nil)

  @Test func aGroupIsFencedPerDeliveryAndRecordsEachOutcome() async throws {
    let db = try await TestDatabase.make()
    let store = try await Self.queuedDeliveries(devices: 4, in: db)
    let claimed = try await store.claim(limit: 10)
    #expect(claimed.count == 4)
    // Another worker took the last one over meanwhile: its lease token moved on.
    try await db.pool.query(
      """
      UPDATE deliveries SET lease_token = nextval('lease_tokens')
      WHERE delivery_id = \(claimed[3].deliveryID)
      """)
    let written = try await store.finish([
      (claimed[0], .sent(apnsID: "a-1", status: 200, latencyMs: 3, hasImage: false)),
      (claimed[1], .retry(status: 503, reason: "ServiceUnavailable", afterSeconds: 30)),
      (claimed[2], Self.deadToken),
      (claimed[3], .sent(apnsID: "a-4", status: 200, latencyMs: 3, hasImage: false)),
    ])
    #expect(written == [true, true, true, false])
    let states = try await db.pool.query(
      """
      SELECT delivery_id, state, lease_token IS NULL AS released,
             next_attempt_at > now() + interval '20 seconds' AS later
      FROM deliveries
      """)
    var byID: [UUID: (String, Bool, Bool)] = [:]
    for row in states {
      byID[try row.uuid("delivery_id")] =
        (try row.string("state"), try row.bool("released"), try row.bool("later"))
    }
    #expect(byID[claimed[0].deliveryID]! == ("sent", true, false))
    #expect(byID[claimed[1].deliveryID]! == ("queued", true, true))
    #expect(byID[claimed[2].deliveryID]! == ("failed", true, false))
    #expect(byID[claimed[3].deliveryID]! == ("queued", false, false))
    let types = try await db.pool.query(
      "SELECT type, data->>'delivery_id' AS d FROM events ORDER BY position"
    )
    .map { try $0.string("type") }
    #expect(
      types == [
        "delivery.sent", "delivery.retry_scheduled", "delivery.failed", "device.deactivated",
      ]
    )
    #expect(try await db.count("SELECT count(*) AS n FROM devices WHERE NOT active") == 1)
  }

  @Test func aDeviceSwitchedOffTwiceInOneGroupIsDeactivatedOnce() async throws {
    let db = try await TestDatabase.make()
    let store = try await Self.queuedDeliveries(devices: 1, in: db)
    // A second alarm's delivery to the same device.
    try await Self.alarm(kind: "mower_lifted", alarmClass: "theft", in: db)
    let claimed = try await store.claim(limit: 10)
    #expect(claimed.count == 2)
    #expect(try await store.finish(claimed.map { ($0, Self.deadToken) }) == [true, true])
    let types = try await db.pool.query("SELECT type FROM events ORDER BY position")
      .map { try $0.string("type") }
    #expect(types.filter { $0 == "delivery.failed" }.count == 2)
    #expect(types.filter { $0 == "device.deactivated" }.count == 1)
  }

  @Test func theWriterGroupsConcurrentOutcomesAndAnswersEachCaller() async throws {
    let db = try await TestDatabase.make()
    let store = try await Self.queuedDeliveries(devices: 30, in: db)
    let claimed = try await store.claim(limit: 100)
    #expect(claimed.count == 30)
    let writer = OutcomeWriter(store: store, maxGroup: 8)
    // Each written exactly once; a repeat of an already ended attempt finds no lease.
    let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
      for (index, delivery) in claimed.enumerated() {
        group.addTask {
          try await writer.write(
            delivery, .sent(apnsID: "a-\(index)", status: 200, latencyMs: 1, hasImage: false))
        }
      }
      group.addTask {
        try await Task.sleep(for: .milliseconds(50))
        return try await writer.write(
          claimed[0], .sent(apnsID: "again", status: 200, latencyMs: 1, hasImage: false))
      }
      return try await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    #expect(answers.filter { $0 }.count == 30)
    #expect(answers.filter { !$0 }.count == 1)
    #expect(try await db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 30)
    #expect(
      try await db.count("SELECT count(*) AS n FROM events WHERE type = 'delivery.sent'") == 30)
    // Fewer transactions than outcomes: the 30 concurrent writes went in groups of at most 8.
    let transactions = try await db.count(
      "SELECT count(DISTINCT tx_id) AS n FROM events WHERE type = 'delivery.sent'")
    #expect(transactions < 30)
    #expect(transactions >= 4)
  }

  @Test func aFailedGroupFailsEveryCallerAndALaterWriteSucceeds() async throws {
    let db = try await TestDatabase.make()
    let store = try await Self.queuedDeliveries(devices: 1, in: db)
    let claimed = try await store.claim(limit: 1)
    let writer = OutcomeWriter(store: store)
    // The events table refuses writes for a moment (as a database that went away would).
    try await db.pool.query("ALTER TABLE events RENAME TO events_away")
    await #expect(throws: DatabaseError.self) {
      try await writer.write(
        claimed[0], .sent(apnsID: "a", status: 200, latencyMs: 1, hasImage: false))
    }
    try await db.pool.query("ALTER TABLE events_away RENAME TO events")
    #expect(
      try await writer.write(
        claimed[0], .sent(apnsID: "a", status: 200, latencyMs: 1, hasImage: false)))
    #expect(try await db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 1)
  }

  /// While the first outcome's transaction waits on a row the test holds, the next ten
  /// queue and go together; PostgreSQL refuses one of them. The group writes nothing, and
  /// then each is written alone: nine are recorded, and only the refused one fails.
  @Test func anOutcomePostgreSQLRefusesFailsOnlyItselfNotItsGroup() async throws {
    let db = try await TestDatabase.make()
    let store = try await Self.queuedDeliveries(devices: 11, in: db)
    let claimed = try await store.claim(limit: 100)
    #expect(claimed.count == 11)
    let refused = claimed[5].deliveryID
    try await db.pool.query("CREATE TABLE refused (delivery_id uuid)")
    try await db.pool.query("INSERT INTO refused VALUES (\(refused))")
    try await db.pool.query(
      """
      CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.delivery_id IN (SELECT delivery_id FROM refused) THEN
          RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$
      """)
    try await db.pool.query(
      "CREATE TRIGGER refuse_one BEFORE UPDATE ON deliveries FOR EACH ROW EXECUTE FUNCTION refuse_one()"
    )
    let writer = OutcomeWriter(store: store)
    let holder = try await PostgresConnection.connect(url: db.url, applicationName: "holder")
    defer { holder.close() }
    try await holder.execute(
      "BEGIN; SELECT 1 FROM deliveries WHERE delivery_id = '\(claimed[0].deliveryID)' FOR UPDATE")
    func sent(_ index: Int) -> DeliveryStore.Outcome {
      .sent(apnsID: "a-\(index)", status: 200, latencyMs: 1, hasImage: false)
    }
    let first = Task { try await writer.write(claimed[0], sent(0)) }
    let holderPID = try await holder.backendPID()
    try await eventually(timeout: .seconds(10), "the first outcome waiting on the row") {
      try await db.count(
        """
        SELECT count(*) AS n FROM pg_stat_activity
        WHERE pg_blocking_pids(pid) @> ARRAY[\(holderPID)::int]
        """) > 0
    }
    let queued = claimed.dropFirst().enumerated().map { offset, delivery in
      let outcome = sent(offset + 1)
      return (delivery.deliveryID, Task { try await writer.write(delivery, outcome) })
    }
    try await Task.sleep(for: .milliseconds(300))
    try await holder.execute("COMMIT")
    #expect(try await first.value)
    for (deliveryID, task) in queued {
      if deliveryID == refused {
        await #expect(throws: DatabaseError.self) { try await task.value }
      } else {
        #expect(try await task.value)
      }
    }
    #expect(try await db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 10)
  }

  struct NotAFailure: Error {
    let action: DeliveryAction
  }

  /// The outcome a 410 Unregistered with this timestamp gives, decided as the worker does
  /// from the registration time the claim read.
  static func unregistered(_ delivery: ClaimedDelivery, at timestamp: Int64) throws
    -> DeliveryStore.Outcome
  {
    let body = Array("{\"reason\":\"Unregistered\",\"timestamp\":\(timestamp)}".utf8)
    let action = DeliveryPolicy.classify(
      .response(status: 410, headers: [:], body: body),
      deviceRegisteredAt: delivery.deviceRegisteredAt)
    guard case .failed(let status, let reason, let deactivate, let apnsTimestamp) = action else {
      throw NotAFailure(action: action)
    }
    return .failed(
      status: status, reason: reason, deactivateDevice: deactivate, apnsTimestamp: apnsTimestamp)
  }

  /// The race of issue 20: APNs saw the token die after the registration the claim read,
  /// but the app registered it again while the push was in flight. The registration time
  /// is checked in the statement that switches the device off, so the device stays active.
  @Test func aTokenRegisteredAgainDuringThePushStaysActive() async throws {
    let db = try await TestDatabase.make()
    let store = try await Self.queuedDeliveries(devices: 2, in: db)
    try await db.pool.query("UPDATE devices SET registered_at = now() - interval '1 hour'")
    let claimed = try await store.claim(limit: 10)
    #expect(claimed.count == 2)
    let died = Int64((Date().timeIntervalSince1970 - 600) * 1000)
    let outcomes = try claimed.map { try Self.unregistered($0, at: died) }
    // From what the claim read, both devices would be switched off.
    #expect(outcomes.allSatisfy { $0.deactivates })
    // Between the claim and the outcome: the first device's token is registered again.
    try await Directory(pool: db.pool).addDevice(
      userID: "u-1", token: claimed[0].token, environment: claimed[0].environment)

    #expect(try await store.finish(Array(zip(claimed, outcomes))) == [true, true])

    let active = try await db.pool.query("SELECT device_id, active FROM devices")
    var byID: [UUID: Bool] = [:]
    for row in active { byID[try row.uuid("device_id")] = try row.bool("active") }
    #expect(byID[claimed[0].deviceID] == true)
    #expect(byID[claimed[1].deviceID] == false)
    let events = try await db.pool.query(
      "SELECT type, data->>'device_id' AS device FROM events ORDER BY position")
    #expect(try events.filter { try $0.string("type") == "delivery.failed" }.count == 2)
    let deactivated = try events.filter { try $0.string("type") == "device.deactivated" }
      .map { try $0.string("device") }
    #expect(deactivated == [claimed[1].deviceID.uuidString.lowercased()])
  }

  /// Two 410s for one device in one group: the later timestamp decides, once.
  @Test func theLatestTimestampOfADeviceDecidesItsDeactivation() async throws {
    let db = try await TestDatabase.make()
    let store = try await Self.queuedDeliveries(devices: 1, in: db)
    try await Self.alarm(kind: "mower_lifted", alarmClass: "theft", in: db)
    try await db.pool.query("UPDATE devices SET registered_at = now() - interval '1 hour'")
    let claimed = try await store.claim(limit: 10)
    #expect(claimed.count == 2)
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    let (before, after) = (now - 7_200_000, now - 600_000)
    func unregistered(at timestamp: Int64) -> DeliveryStore.Outcome {
      .failed(status: 410, reason: "Unregistered", deactivateDevice: true, apnsTimestamp: timestamp)
    }
    let written = try await store.finish([
      (claimed[0], unregistered(at: before)), (claimed[1], unregistered(at: after)),
    ])
    #expect(written == [true, true])
    #expect(try await db.count("SELECT count(*) AS n FROM devices WHERE NOT active") == 1)
    let deactivations = try await db.pool.query(
      "SELECT (data->>'apns_timestamp')::bigint AS t FROM events WHERE type = 'device.deactivated'"
    ).map { try $0.int("t") }
    #expect(deactivations == [Int(after)])
  }
}
