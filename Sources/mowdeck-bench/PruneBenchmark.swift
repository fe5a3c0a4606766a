import Events
import Foundation
import TestSupport

/// Issue 6's benchmark: prune 1,000,000 old events in batches while alarms keep flowing,
/// and compare the fan-out's publish-to-commit latency with and without the prune.
struct PruneBenchmark {
  let db: TestDatabase
  let nats: NATSClient
  let events: Int
  let rate: Int

  func run() async throws -> String {
    let fanout = BenchLoad(db: db)
    try await fanout.seedFleet()
    try await db.pool.query(
      """
      INSERT INTO events (type, correlation_id, data, recorded_at)
      SELECT 'alarm.received', gen_random_uuid(), '{"mower_id":"old"}'::jsonb,
             now() - interval '40 days'
      FROM generate_series(1, \(events))
      """)
    try await db.pool.query("VACUUM ANALYZE events")
    let prefix = uniqueSubjectPrefix()
    let subjects = Subjects(prefix: prefix)
    var environment = try WorkerProcess.environment(database: db, subjectPrefix: prefix)
    environment["MOWDECK_NOTIFICATIONS_PRUNE_INTERVAL_SECONDS"] = "3600"
    let worker = try WorkerProcess("FanoutWorker", environment: environment)
    defer { worker.stop() }
    let publisher = try await AlarmPublisher(nats: nats, subjects: subjects, pool: db.pool)
    _ = try await fanout.drive(publisher, subjects, count: 200, rate: 400)
    let quiet = try await fanout.drive(publisher, subjects, count: rate * 10, rate: rate)

    let pruner = try WorkerProcess("PruneWorker", environment: environment)
    defer { pruner.stop() }
    let started = ContinuousClock.now
    let sampler = Task { () -> (Int, Int) in
      var most = 0
      var samples = 0
      while !Task.isCancelled {
        let waiting =
          (try? await db.count("SELECT count(*) AS n FROM pg_locks WHERE NOT granted")) ?? 0
        most = max(most, waiting)
        samples += 1
        try? await Task.sleep(for: .milliseconds(20))
      }
      return (most, samples)
    }
    let during = Task { () -> Samples in
      var all = Samples()
      while !Task.isCancelled {
        for value in (try? await fanout.drive(publisher, subjects, count: rate, rate: rate))?.values
          ?? []
        {
          all.add(value)
        }
      }
      return all
    }
    try await eventually(timeout: .seconds(600), "the prune to finish") {
      pruner.log.contains("\"msg\":\"events pruned\"")
    }
    let pruneSeconds = (ContinuousClock.now - started).seconds
    during.cancel()
    sampler.cancel()
    let busy = await during.value
    let (mostWaiting, samples) = await sampler.value
    var table = TextTable("run", "alarms", "median", "p99", "max", "note")
    table.add(
      "fan-out without prune", "\(quiet.count)", ms(quiet.median), ms(quiet.p99), ms(quiet.maximum),
      "\(rate)/s")
    table.add(
      "fan-out during prune", "\(busy.count)", ms(busy.median), ms(busy.p99), ms(busy.maximum),
      String(format: "p99 ratio %.2f", busy.p99 / quiet.p99))
    table.add(
      "prune of \(events) events", "", "", "", "",
      String(
        format: "%.1f s, %.0f events/s, most waiting locks %d (%d samples)", pruneSeconds,
        Double(events) / pruneSeconds, mostWaiting, samples))
    return table.render()
  }
}
