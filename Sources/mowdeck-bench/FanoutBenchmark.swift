import Events
import Foundation
import Infrastructure
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

  func run() async throws -> String {
    let load = BenchLoad(db: db)
    try await load.seedFleet()
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
      _ = try await load.drive(publisher, subjects, count: 200, rate: 400)  // warm-up
      // Statistics as autovacuum keeps them past a deployment's first minute, before each
      // phase: the figures must not depend on whether it has run yet (docs/benchmarks.md).
      try await db.pool.query("ANALYZE")
      let fixed = try await load.drive(publisher, subjects, count: rate * seconds, rate: rate)
      try await db.pool.query("ANALYZE")
      let cpuBefore = workers.compactMap { cpuSeconds(pid: $0.pid) }.reduce(0, +)
      let start = ContinuousClock.now
      let burst = try await load.drive(publisher, subjects, count: throughputAlarms, rate: nil)
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
}
