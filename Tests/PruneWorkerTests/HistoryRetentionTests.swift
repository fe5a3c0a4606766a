import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import PruneWorker

/// ADR 0018: old alarms go with their inbox items, deliveries and reservations, in batches;
/// anything JetStream could still redeliver stays.
@Suite struct HistoryRetentionTests {
  let day = 86_400

  func rows(_ db: TestDatabase, _ table: String) async throws -> Int {
    try await db.count("SELECT count(*) AS n FROM \(identifier: table)")
  }

  @Test func oldAlarmsGoInBatchesWithTheirInboxItemsDeliveriesAndReservations() async throws {
    let db = try await TestDatabase.make()
    try await db.importFleet40()
    try await insertAlarms(db, count: 25, ageDays: 31)
    let young = try await insertAlarms(db, count: 3, ageDays: 29)
    let retention = HistoryRetention(
      pool: db.pool, maximumAgeSeconds: 30 * day, batchSize: 100)
    var batches: [HistoryRetention.Removal] = []
    while true {
      let removal = try await retention.pruneAlarmBatch()
      batches.append(removal)
      if removal.alarms < 10 { break }
    }
    #expect(batches.map(\.alarms) == [10, 10, 5])
    #expect(batches.map(\.inboxItems) == [10, 10, 5])
    let left = try await db.pool.query("SELECT event_id FROM alarms").map {
      try $0.uuid("event_id")
    }
    #expect(Set(left) == Set(young))
    #expect(try await rows(db, "notifications") == 3)
    #expect(try await rows(db, "deliveries") == 3)
    #expect(try await rows(db, "photo_reservations") == 3)
  }

  /// A delivery still queued or a photo still pending at that age can no longer succeed:
  /// it goes with its alarm, counted, and does not hold the alarm back.
  @Test(arguments: [("queued", "captured"), ("sent", "pending")])
  func unfinishedWorkOfAnOldAlarmGoesWithItCounted(delivery: String, reservation: String)
    async throws
  {
    let db = try await TestDatabase.make()
    try await db.importFleet40()
    try await insertAlarms(db, count: 1, ageDays: 40, delivery: delivery, reservation: reservation)
    try await insertAlarms(db, count: 2, ageDays: 40)
    let young = try await insertAlarms(
      db, count: 1, ageDays: 1, delivery: delivery, reservation: reservation)
    let retention = HistoryRetention(
      pool: db.pool, maximumAgeSeconds: 30 * day, batchSize: 100)
    #expect(
      try await retention.pruneAlarmBatch() == .init(alarms: 3, inboxItems: 3, unfinished: 1))
    let left = try await db.pool.query("SELECT event_id FROM alarms").map {
      try $0.uuid("event_id")
    }
    #expect(left == young)
    #expect(try await rows(db, "deliveries") == 1)
    #expect(try await rows(db, "photo_reservations") == 1)
  }

  @Test func handledMessagesOlderThanTheAgeGoInBatches() async throws {
    let db = try await TestDatabase.make()
    try await db.pool.query(
      """
      INSERT INTO ingress_messages (stream_seq, correlation_id, outcome, handled_at)
      SELECT g, gen_random_uuid(), 'decided',
             now() - make_interval(days => CASE WHEN g <= 12 THEN 31 ELSE 29 END)
      FROM generate_series(1, 15) g
      """)
    let retention = HistoryRetention(
      pool: db.pool, maximumAgeSeconds: 30 * day, batchSize: 5)
    var batches: [Int] = []
    while true {
      let removed = try await retention.pruneIngressBatch()
      batches.append(removed)
      if removed < 5 { break }
    }
    #expect(batches == [5, 5, 2])
    #expect(try await db.count("SELECT min(stream_seq) AS n FROM ingress_messages") == 13)
  }

  /// A message JetStream keeps (7 days) may be redelivered: its rows must still be there.
  @Test func theAgeIsNeverBelowTheStreamsPlusADay() async throws {
    let db = try await TestDatabase.make()
    try await db.importFleet40()
    let kept = try await insertAlarms(db, count: 1, ageDays: 7)
    try await insertAlarms(db, count: 1, ageDays: 9)
    let retention = HistoryRetention(
      pool: db.pool, maximumAgeSeconds: 1 * day, batchSize: 100)
    #expect(retention.maximumAgeSeconds == 8 * day)
    #expect(try await retention.pruneAlarmBatch().alarms == 1)
    #expect(
      try await db.pool.query("SELECT event_id FROM alarms").map { try $0.uuid("event_id") } == kept
    )
  }
}

/// `count` alarms received `ageDays` ago, each with an inbox item and a delivery (in
/// `delivery` state) for one device of the recorded fleet, and a photo reservation in
/// `reservation` state unless nil. Returns the alarms' event ids.
@discardableResult
func insertAlarms(
  _ db: TestDatabase, count: Int, ageDays: Int, delivery: String = "sent",
  reservation: String? = "captured"
) async throws -> [UUID] {
  try await db.pool.query(
    """
    WITH device AS (SELECT device_id, user_id FROM devices ORDER BY device_id LIMIT 1),
    ids AS (
      SELECT gen_random_uuid() AS event_id, gen_random_uuid() AS notification_id,
             now() - make_interval(secs => \(ageDays * 86_400)) AS at
      FROM generate_series(1, \(count))
    ), alarm AS (
      INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                          decision, photo, recipients, received_at)
      SELECT event_id, 'm-1', 'mower_lifted', 'theft', at, at, 'pushed', 'reserved', 1, at
      FROM ids RETURNING event_id
    ), inbox AS (
      INSERT INTO notifications (notification_id, event_id, user_id, created_at)
      SELECT i.notification_id, a.event_id, d.user_id, i.at
      FROM ids i JOIN alarm a USING (event_id) CROSS JOIN device d
      RETURNING notification_id, created_at
    ), outbox AS (
      -- Due when its alarm came, as every delivery of an alarm that old would be.
      INSERT INTO deliveries (notification_id, device_id, state, created_at, next_attempt_at)
      SELECT n.notification_id, d.device_id, \(delivery)::text, n.created_at, n.created_at
      FROM inbox n CROSS JOIN device d
    ), reserved AS (
      INSERT INTO photo_reservations (image_id, event_id, mower_id, reserved_on, state,
                                      created_at)
      SELECT gen_random_uuid(), a.event_id, 'm-1', i.at, \(reservation)::text, i.at
      FROM ids i JOIN alarm a USING (event_id) WHERE \(reservation)::text IS NOT NULL
    )
    SELECT event_id FROM alarm
    """
  ).map { try $0.uuid("event_id") }
}
