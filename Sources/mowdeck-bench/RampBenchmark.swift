import Events
import Foundation
import Infrastructure
import TestSupport

/// The ramp of issue 24: one stack, started and warmed up once, loaded at rising rates one
/// step after the other, to find the highest rate it sustains.
struct RampSettings {
  static let defaultRates = [100, 250, 500, 750, 1000, 1500, 2000]
  var rates = Self.defaultRates
  var stepSeconds = 30
  /// The camera, its silent share, the fleet and the replicas of a single-rate run. Its
  /// rate, length and phones are not used: the ramp runs no phone (its fetches are a
  /// fixed sample of ten a second, nothing a ramp would move).
  var pipeline = PipelineSettings()
  /// How long after a step ends its latencies are read. At least the second the p99 is
  /// judged against, so that an alarm not pushed by then is late whatever its latency.
  var graceSeconds = 2.0
}

struct RampBenchmark {
  let nats: NATSClient
  let settings: RampSettings

  /// Runs the steps, printing each one's row as it is read (a step is read `graceSeconds` into
  /// the next one, whose load goes on meanwhile).
  func run() async throws -> RampResult {
    let pipeline = settings.pipeline
    let db = try await TestDatabase.make()
    try await BenchLoad(db: db).seedVacuumedFleet(mowers: pipeline.mowers)
    let waited = await ProcessSampler.waitForQuietMachine()
    if waited >= 1 { print(String(format: "waited %.0f s for a quiet machine", waited)) }
    let rig = try await PipelineRig(
      db: db, cameraLatency: "\(pipeline.cameraMs)",
      simulatorArguments: ["--silent", String(pipeline.timeouts)])
    defer { rig.stop() }
    try await rig.startPipeline(replicas: pipeline.replicas)
    let publisher = try await AlarmPublisher(nats: nats, subjects: rig.subjects, pool: db.pool)
    // Every process, the camera simulator too: on a machine of two cores, what the harness
    // uses is what the pipeline does not get.
    let sampler = ProcessSampler(processes: rig.processes, servers: ProcessSampler.benchServers())
    let sampling = Task { await sampler.run(every: .seconds(1)) }
    let mix = AlarmMix(mowers: pipeline.mowers)

    // Warm-up, not measured, as the single-rate run's: the first pushes open the HTTP/2
    // connections to APNs, the first requests fill the pools.
    let first = settings.rates.first ?? 100
    _ = try await rig.publishAtRate(
      publisher, rate: first, count: min(first * 3, 300), alarm: mix.alarm)
    try await Task.sleep(for: .seconds(2))

    print(RampResult.header(settings, serversSampled: !ProcessSampler.benchServers().isEmpty))
    var reader = StepReader(db: db, sampler: sampler, pushes: RampPushes(record: rig.record))
    var steps: [RampStep] = []
    var unread: (rate: Int, sent: PublishedAlarms, start: RampBoundary, end: RampBoundary)?
    var start = try await boundary(db: db, rig: rig, sampler: sampler)
    var stoppedEarly = false
    for rate in settings.rates {
      let count = rate * settings.stepSeconds
      let publishing = Task {
        try await rig.publishAtRate(publisher, rate: rate, count: count, alarm: mix.alarm)
      }
      if let previous = unread {
        try await sleep(until: previous.end.date)
        let step = try await reader.read(
          rate: previous.rate, sent: previous.sent, start: previous.start, end: previous.end)
        steps.append(step)
        print(RampResult.row(step))
        unread = nil
        // Two steps in a row not sustained: higher rates would only pile up more.
        if steps.count >= 2, !steps[steps.count - 1].sustained, !steps[steps.count - 2].sustained {
          publishing.cancel()
          _ = try? await publishing.value
          stoppedEarly = true
          break
        }
      }
      let sent = try await publishing.value
      let end = try await boundary(db: db, rig: rig, sampler: sampler)
      unread = (rate, sent, start, end)
      start = end
    }
    if let last = unread {
      try await sleep(until: last.end.date)
      let step = try await reader.read(
        rate: last.rate, sent: last.sent, start: last.start, end: last.end)
      steps.append(step)
      print(RampResult.row(step))
    }
    sampling.cancel()
    await sampler.stop()
    // Peak RSS is read from the live processes: before they stop.
    let peak = await sampler.usage(warmUp: 0).filter { $0.name.hasSuffix("Worker") }
      .max { $0.peakRSS < $1.peakRSS }
    rig.stop()
    await db.pool.close()
    return RampResult(
      settings: settings, steps: steps, stoppedEarly: stoppedEarly,
      largestPeakRSS: peak.map { ($0.name, $0.peakRSS) })
  }

  /// Until `graceSeconds` after a step's end.
  private func sleep(until end: Date) async throws {
    let wait = settings.graceSeconds - Date().timeIntervalSince(end)
    if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
  }

  private func boundary(db: TestDatabase, rig: PipelineRig, sampler: ProcessSampler)
    async throws -> RampBoundary
  {
    RampBoundary(
      date: Date(), sampled: await sampler.mark(),
      backlog: try await PipelineBacklog.read(db: db, nats: nats, subjects: rig.subjects),
      handoffs: await FanoutHandoffs.read(rig.processes),
      photos: try await PhotoOutcomes.read(db: db))
  }
}

/// Reads a finished step: its alarms' pushes from the sandbox's record, their decisions
/// from the database, its processes from the sampler.
private struct StepReader {
  let db: TestDatabase
  let sampler: ProcessSampler
  var pushes: RampPushes

  mutating func read(
    rate: Int, sent published: PublishedAlarms, start: RampBoundary, end: RampBoundary
  ) async throws -> RampStep {
    let sent = published.sent
    // The record first, then the decisions: an alarm pushed by the time the record is read
    // was decided before, so it is found below.
    pushes.read()
    let cutoff = Date()
    var notifications: [String: [String]] = [:]
    var suppressed: Set<String> = []
    for row in try await db.pool.query(
      """
      SELECT a.event_id::text AS e, a.decision AS d, n.notification_id::text AS n
      FROM alarms a LEFT JOIN notifications n ON n.event_id = a.event_id
      WHERE a.event_id = ANY(\(PostgresArray(Array(sent.keys)))::uuid[])
      """)
    {
      let event = try row.string("e")
      if try row.string("d") == "suppressed" {
        suppressed.insert(event)
      } else if let notification = try row.optionalString("n") {
        notifications[event, default: []].append(notification)
      }
    }
    var latencies = Samples()
    var notPushed = 0
    var youngest: Double?
    // Suppressed: no push to wait for. Not in the table: not even decided by the cutoff,
    // as late as one decided and not pushed.
    for (event, published) in sent where !suppressed.contains(event) {
      let first = (notifications[event] ?? []).compactMap { pushes.firstPush(of: $0) }.min()
      if let first {
        latencies.add(first.timeIntervalSince(published))
      } else {
        let age = cutoff.timeIntervalSince(published)
        latencies.add(age)
        notPushed += 1
        youngest = min(youngest ?? age, age)
      }
    }
    let step = RampStep(
      rate: rate, start: start, end: end, published: sent.count,
      unacknowledged: published.unacknowledged,
      pushes: pushes.count(from: start.date, to: end.date), latencies: latencies,
      notPushed: notPushed, youngestNotPushed: youngest, suppressed: suppressed.count,
      processes: await sampler.window(from: start.sampled, to: end.sampled))
    pushes.forget(before: end.date)
    return step
  }
}
