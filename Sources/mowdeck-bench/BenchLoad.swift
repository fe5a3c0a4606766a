import Events
import Foundation
import Infrastructure
import TestSupport

/// The load the benchmarks share: a fleet of 1,000 mowers with 3 recipients each, and
/// alarms published at a fixed rate (or flat out) with each one's publish-to-decision time.
struct BenchLoad {
  let db: TestDatabase
  static let mowers = 1000

  /// `mowers` mowers (1,000 unless told), each seen by 3 users with one phone each: 3
  /// recipients per alarm.
  func seedFleet(mowers: Int = Self.mowers) async throws {
    try await db.pool.query(
      """
      INSERT INTO users (user_id, name)
        SELECT 'bu-' || i, 'Bench user ' || i FROM generate_series(0, \(mowers * 3 - 1)) i;
      """)
    try await db.pool.query(
      "INSERT INTO mowers (mower_id, name) SELECT 'bm-' || i, 'Bench ' || i FROM generate_series(0, \(mowers - 1)) i"
    )
    try await db.pool.query(
      "INSERT INTO grants (mower_id, user_id) SELECT 'bm-' || (i / 3), 'bu-' || i FROM generate_series(0, \(mowers * 3 - 1)) i"
    )
    try await db.pool.query(
      """
      INSERT INTO devices (user_id, token, environment)
        SELECT 'bu-' || i, lpad(to_hex(i), 64, '0'), 'production'
        FROM generate_series(0, \(mowers * 3 - 1)) i
      """)
  }

  /// `seedFleet`, then vacuumed and analysed as a real directory is: freshly seeded tables
  /// have neither until autovacuum gets to them, and the first minutes of a run would
  /// measure that instead. Only the seeded tables: an ANALYZE of the empty alarm tables
  /// records them as empty, and every plan made before autovacuum's next ANALYZE scans them
  /// sequentially as they grow.
  func seedVacuumedFleet(mowers: Int) async throws {
    try await seedFleet(mowers: mowers)
    try await db.pool.query("VACUUM ANALYZE users, mowers, grants, devices")
  }

  /// Publishes `count` alarms, at `rate` per second or as fast as 400 in flight allow;
  /// returns each alarm's publish-to-decision latency.
  func drive(_ publisher: AlarmPublisher, _ subjects: Subjects, count: Int, rate: Int?)
    async throws -> Samples
  {
    let start = ContinuousClock.now
    return try await withThrowingTaskGroup(of: Double.self) { group in
      var samples = Samples()
      var inFlight = 0
      for index in 0..<count {
        if let rate {
          let due = start + .microseconds(Int64(index) * 1_000_000 / Int64(rate))
          if due > .now { try await Task.sleep(until: due, clock: .continuous) }
        } else if inFlight >= 400 {
          samples.add(try await group.next()!)
          inFlight -= 1
        }
        let mower = "bm-\(Int.random(in: 0..<Self.mowers))"
        let kind = index % 10 == 0 ? "mower_stuck" : "battery_low"
        let payload = AlarmMessage(
          mowerID: mower, kind: kind, occurredAt: Date(), mowerName: "Bench"
        ).encoded
        group.addTask {
          let sent = ContinuousClock.now
          let decided = try await publisher.publishAndWait(
            subject: subjects.alarm(mowerID: mower), payload: payload,
            timeout: .seconds(60))
          return (decided.noticedAt - sent).seconds
        }
        inFlight += 1
      }
      for try await latency in group { samples.add(latency) }
      return samples
    }
  }
}
