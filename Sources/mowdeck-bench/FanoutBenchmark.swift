import Events
import Foundation
import TestSupport

/// Issue 2's benchmark: alarms at a fixed rate through 1 and 2 FanoutWorker replicas, the
/// latency from publish to committed decision, the throughput, and the floors.
struct FanoutBenchmark {
  let db: TestDatabase
  let nats: NATSClient
  let rate: Int
  let seconds: Int
  let throughputAlarms: Int
  let replicaCounts: [Int]
  static let mowers = 1000

  /// 1,000 mowers, each seen by 3 users with one phone each: 3 recipients per alarm.
  func seedFleet() async throws {
    try await db.pool.query(
      """
      INSERT INTO users (user_id, name)
        SELECT 'bu-' || i, 'Bench user ' || i FROM generate_series(0, \(Self.mowers * 3 - 1)) i;
      """)
    try await db.pool.query(
      "INSERT INTO mowers (mower_id, name) SELECT 'bm-' || i, 'Bench ' || i FROM generate_series(0, \(Self.mowers - 1)) i"
    )
    try await db.pool.query(
      "INSERT INTO grants (mower_id, user_id) SELECT 'bm-' || (i / 3), 'bu-' || i FROM generate_series(0, \(Self.mowers * 3 - 1)) i"
    )
    try await db.pool.query(
      """
      INSERT INTO devices (user_id, token, environment)
        SELECT 'bu-' || i, lpad(to_hex(i), 64, '0'), 'production'
        FROM generate_series(0, \(Self.mowers * 3 - 1)) i
      """)
  }

  func run() async throws -> String {
    try await seedFleet()
    let pgFloor = try await Floors.postgresInsertCommit(pool: db.pool)
    let natsFloor = try await Floors.natsRoundTrip(
      nats: nats, subject: uniqueSubjectPrefix() + ".floor")
    var table = TextTable(
      "run", "load", "alarms", "median", "p99", "max", "alarms/s", "worker peak RSS",
      "worker CPU ms/alarm")
    table.add(
      "floor: PostgreSQL insert+commit", "sequential", "\(pgFloor.count)", ms(pgFloor.median),
      ms(pgFloor.p99), ms(pgFloor.maximum), "", "")
    table.add(
      "floor: NATS round trip", "sequential", "\(natsFloor.count)", ms(natsFloor.median),
      ms(natsFloor.p99), ms(natsFloor.maximum), "", "")
    for replicas in replicaCounts {
      let prefix = uniqueSubjectPrefix()
      let subjects = Subjects(prefix: prefix)
      let environment = try WorkerProcess.environment(database: db, subjectPrefix: prefix)
      let workers = try (0..<replicas).map { _ in
        try WorkerProcess("FanoutWorker", environment: environment)
      }
      defer { for item in workers { item.stop() } }
      let publisher = try await AlarmPublisher(nats: nats, subjects: subjects, pool: db.pool)
      _ = try await drive(publisher, subjects, count: 200, rate: 400)  // warm-up
      let fixed = try await drive(publisher, subjects, count: rate * seconds, rate: rate)
      let cpuBefore = workers.compactMap { cpuSeconds(pid: $0.pid) }.reduce(0, +)
      let start = ContinuousClock.now
      let burst = try await drive(publisher, subjects, count: throughputAlarms, rate: nil)
      let elapsed = (ContinuousClock.now - start).seconds
      let cpu = workers.compactMap { cpuSeconds(pid: $0.pid) }.reduce(0, +) - cpuBefore
      let cpuPerAlarm = String(format: "%.2f", cpu * 1000 / Double(throughputAlarms))
      let rss = workers.compactMap { peakRSSMiB(pid: $0.pid) }.map {
        String(format: "%.1f MiB", $0)
      }
      .joined(separator: ", ")
      table.add(
        "\(replicas) replica(s), fixed rate", "\(rate)/s", "\(fixed.count)", ms(fixed.median),
        ms(fixed.p99), ms(fixed.maximum), "", rss)
      table.add(
        "\(replicas) replica(s), flat out", "400 in flight", "\(burst.count)", ms(burst.median),
        ms(burst.p99), ms(burst.maximum), String(format: "%.0f", Double(burst.count) / elapsed),
        rss, cpuPerAlarm)
    }
    return table.render()
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
        let payload = JSON.encode([
          "event_id": UUID().uuidString.lowercased(), "mower_id": mower, "kind": kind,
          "occurred_at": Timestamp.format(Date()), "mower_name": "Bench",
        ])
        group.addTask {
          let sent = ContinuousClock.now
          let decided = try await publisher.publishAndWait(
            subject: subjects.alarm(mowerID: mower), payload: Array(payload.utf8),
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
