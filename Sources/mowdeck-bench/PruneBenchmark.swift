import Events
import Foundation
import Infrastructure
import TestSupport

/// Issue 6's benchmark: prune 1,000,000 old events in batches while alarms keep flowing,
/// and compare the fan-out's publish-to-commit latency with and without the prune. Since
/// ADR 0018 the same pass also removes old alarms, with three inbox items and deliveries
/// each, and their handled-message rows.
struct PruneBenchmark {
  let db: TestDatabase
  let nats: NATSClient
  let events: Int
  let alarms: Int
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
    try await db.pool.query(
      """
      WITH recipients AS (
        SELECT DISTINCT ON (user_id) user_id, device_id FROM devices ORDER BY user_id LIMIT 3
      ), alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            decision, recipients, received_at)
        SELECT gen_random_uuid(), 'old', 'mower_lifted', 'theft', t, t, 'pushed', 3, t
        FROM generate_series(1, \(alarms)), LATERAL (SELECT now() - interval '40 days' AS t) x
        RETURNING event_id, received_at
      ), inbox AS (
        INSERT INTO notifications (notification_id, event_id, user_id, created_at)
        SELECT gen_random_uuid(), a.event_id, r.user_id, a.received_at
        FROM alarm a CROSS JOIN recipients r
        RETURNING notification_id, user_id
      ), outbox AS (
        INSERT INTO deliveries (notification_id, device_id, state, created_at)
        SELECT n.notification_id, r.device_id, 'sent', now() - interval '40 days'
        FROM inbox n JOIN recipients r USING (user_id)
      )
      -- Far above the sequences of the live stream, which starts at 1.
      INSERT INTO ingress_messages (stream_seq, correlation_id, outcome, handled_at)
      SELECT 1000000000 + row_number() OVER (), event_id, 'decided', received_at FROM alarm
      """)
    // Only the tables seeded: an analyzed empty table (mower_state here) is planned as
    // empty, and scanned sequentially as the fan-out fills it (docs/benchmarks.md).
    try await db.pool.query(
      """
      VACUUM ANALYZE users, mowers, grants, devices, events, alarms, notifications,
        deliveries, ingress_messages
      """)
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
      pruner.log.contains("\"msg\":\"handled messages pruned\"")
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
      "whole pass", "", "", "", "",
      String(
        format: "%.1f s, most waiting locks %d (%d samples)", pruneSeconds, mostWaiting,
        samples))
    for (step, count, unit) in [
      ("events", events, "events"), ("alarms", alarms, "alarms (3 inbox items, 3 deliveries each)"),
      ("handled messages", alarms, "handled messages"),
    ] {
      let seconds = Self.seconds(of: step, in: pruner.log)
      table.add(
        "prune of \(count) \(unit)", "", "", "", "",
        String(format: "%.1f s, %.0f/s", seconds, Double(count) / seconds))
    }
    return table.render()
  }

  /// The duration the PruneWorker logged for one step of its pass.
  static func seconds(of step: String, in log: String) -> Double {
    for line in log.split(separator: "\n") {
      if let logged = try? WireCoding.decode(PruneStepLine.self, from: Array(line.utf8)),
        logged.msg == "\(step) pruned", let seconds = logged.seconds
      {
        return seconds
      }
    }
    return .nan
  }
}

/// The fields of a PruneWorker log line that say how long one step of its pass took.
private struct PruneStepLine: Decodable {
  var msg: String?
  var seconds: Double?
}
