import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import PhotoWorker

/// Issue 20, item 2: PostgreSQL's failures classified in the PhotoWorker's commit. Cleaned
/// details leave a camera no way to make PostgreSQL refuse an outcome, so this test's own
/// schema does: a CHECK constraint, and a trigger that refuses rows by mower.
extension PhotoProcessTests {
  /// Makes this test's photo table refuse, by the alarm's mower:
  /// - `m-refused`: its photo, by a CHECK constraint on the size (class 23, content);
  /// - `m-puzzling`: its photo, with an error nobody classified (P0001, unknown);
  /// - `m-doomed`: every row, the `store_rejected` marker too.
  func refuseSomeRows(_ db: TestDatabase) async throws {
    try await db.pool.query(
      """
      ALTER TABLE notification_images
        ADD CONSTRAINT photos_of_1234_bytes_refused CHECK (byte_size <> 1234)
      """)
    try await db.pool.query(
      """
      CREATE FUNCTION refuse_some_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE mower text;
      BEGIN
        SELECT mower_id INTO mower FROM alarms WHERE event_id = NEW.event_id;
        IF mower = 'm-puzzling' AND NEW.state = 'captured' THEN
          RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'P0001';
        ELSIF mower = 'm-doomed' THEN
          RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$
      """)
    try await db.pool.query(
      """
      CREATE TRIGGER refuse_some_rows BEFORE INSERT ON notification_images
      FOR EACH ROW EXECUTE FUNCTION refuse_some_rows()
      """)
  }

  /// Log lines holding both texts.
  func lines(in log: String, with texts: String...) -> Int {
    log.split(separator: "\n").filter { line in texts.allSatisfy { line.contains($0) } }.count
  }

  @Test func anOutcomePostgreSQLRefusesEndsAsStoreRejectedAndTheWorkerGoesOn() async throws {
    let stack = try await Stack(photoTimeout: 4)
    try await refuseSomeRows(stack.db)
    let simulator = try await stack.simulator(
      latencyMs: 20,
      behaviours: [
        "m-refused": "photo:1234", "m-puzzling": "photo", "m-doomed": "photo", "m-ok": "photo",
      ])
    defer { simulator.stop() }
    let worker = try await stack.photoWorker()
    defer { worker.stop() }

    // Refused for its content: a store_rejected marker at once, so its URL answers "never".
    let refused = try await stack.reserve(mower: "m-refused")[0]
    // Refused for a reason nobody classified: five attempts, then the same.
    let puzzling = try await stack.reserve(mower: "m-puzzling")[0]
    try await eventually(timeout: .seconds(20), "both to end as store_rejected") {
      let outcomes = try await stack.outcomes()
      return outcomes[refused] == "store_rejected" && outcomes[puzzling] == "store_rejected"
    }
    #expect(
      try await stack.db.count(
        """
        SELECT count(*) AS n FROM photo_reservations
        WHERE image_id IN (\(refused), \(puzzling)) AND finished_at > created_at + interval '5 s'
        """) == 0)
    let details = try await stack.db.pool.query(
      """
      SELECT (data->>'image_id')::uuid AS image, data->>'detail' AS detail FROM events
      WHERE type = 'photo.failed' AND data->>'reason' = 'store_rejected'
      """
    ).reduce(into: [UUID: String]()) { $0[try $1.uuid("image")] = try $1.optionalString("detail") }
    #expect(
      details[refused]
        == "storing captured failed: SQLSTATE 23514, class 23 (integrity constraint violation), constraint photos_of_1234_bytes_refused"
    )
    #expect(details[puzzling] == "storing captured failed: SQLSTATE P0001, class P0")
    let log = worker.log
    let retry = "storing a photo outcome failed, retrying"
    #expect(lines(in: log, with: retry, refused.uuidString.lowercased()) == 0)
    #expect(
      lines(in: log, with: retry, puzzling.uuidString.lowercased())
        == StoreAttempts.unknownFailuresAllowed - 1)

    // Refused even as a marker: given up, no loop; its lease is no longer renewed, so it
    // lapses and the reservation is claimed again (here too late to ask: worker_lost).
    let doomed = try await stack.reserve(mower: "m-doomed")[0]
    let givenUp = "giving the photo up"
    // Room for a loaded machine: the claim itself is not what is measured here.
    try await eventually(timeout: .seconds(20), "the doomed photo given up") {
      lines(in: worker.log, with: givenUp, doomed.uuidString.lowercased()) >= 1
    }
    try await eventually(timeout: .seconds(20), "its lease to lapse and be claimed again") {
      try await stack.db.count(
        "SELECT attempts AS n FROM photo_reservations WHERE image_id = \(doomed)") >= 2
    }
    // Two stores a claim (the photo, then the marker), never more.
    let attempts = try await stack.db.count(
      "SELECT attempts AS n FROM photo_reservations WHERE image_id = \(doomed)")
    #expect(lines(in: worker.log, with: givenUp, doomed.uuidString.lowercased()) <= attempts)
    #expect(lines(in: worker.log, with: retry, doomed.uuidString.lowercased()) == 0)

    // Meanwhile the worker still captures another mower's photo.
    let valid = try await stack.reserve(mower: "m-ok")[0]
    try await eventually(timeout: .seconds(10), "a valid photo captured") {
      try await stack.outcomes()[valid] == "captured"
    }
    #expect(worker.isRunning)
  }
}
