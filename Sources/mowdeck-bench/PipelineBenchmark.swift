import Events
import Foundation
import Infrastructure
import TestSupport

/// One run of issue 9's benchmark: the whole stack as processes (two replicas of every
/// worker, one pruner, the camera simulator, the APNs sandbox), the alarm mix at a fixed
/// rate, and what an operator wants to know: throughput, the latencies from alarm to push,
/// to photo stored and to the phone's fetch, each worker type's memory and CPU, and the
/// floors measured on the same servers just before the load.
struct PipelineSettings {
  var rate = 100
  var seconds = 30
  var cameraMs = 5000
  /// Share of camera requests never answered (the PhotoWorker's timeout ends them).
  var timeouts = 0.2
  var mowers = 20_000
  var replicas = 2
  /// Seconds of load before memory is taken as warmed up (the soak's drift check).
  var warmUp = 60
  /// Alarms a second whose first phone fetches the photo as the extension would (a sample,
  /// so that the phones' polling does not become the load); 0: no phone.
  var phonesPerSecond = 10
  /// Put in front of the CSV files' names ("soak"), so runs of one rate and camera differ.
  var name = ""
}

struct PipelineBenchmark {
  let nats: NATSClient
  let settings: PipelineSettings

  func run() async throws -> PipelineResult {
    let db = try await TestDatabase.make()
    try await BenchLoad(db: db).seedVacuumedFleet(mowers: settings.mowers)
    let waited = await ProcessSampler.waitForQuietMachine()
    if waited >= 1 { print(String(format: "waited %.0f s for a quiet machine", waited)) }
    let timeoutPercent = Int((settings.timeouts * 100).rounded())
    let rig = try await PipelineRig(
      db: db, cameraLatency: "\(settings.cameraMs)",
      simulatorArguments: ["--silent", String(settings.timeouts)])
    defer { rig.stop() }

    var floors = PipelineFloors()
    floors.quiet.postgres = try await Floors.postgresInsertCommit(pool: db.pool, count: 300)
    floors.quiet.nats = try await Floors.natsRoundTrip(
      nats: nats, subject: rig.subjects.prefix + "floor", count: 500)
    floors.quiet.sandbox = try rig.sandboxAnswerTimes(count: 200)

    try await rig.startPipeline(replicas: settings.replicas)
    var serving: [String] = []
    for serve in rig.processes where serve.name == "ImageServeWorker" {
      serving.append("http://127.0.0.1:\(try await listeningPort(of: serve))")
    }
    let publisher = try await AlarmPublisher(nats: nats, subjects: rig.subjects, pool: db.pool)

    let sampler = ProcessSampler(processes: rig.processes.filter { $0.name != "GatewaySimulator" })
    let phone = PhoneEmulator(origin: "https://owner.example", local: serving)
    let pushes = PushTail(record: rig.record)
    let photoAlarmsPerSecond = Double(settings.rate) * 0.3
    let phonesPerSecond = settings.phonesPerSecond
    let follower = Task {
      guard phonesPerSecond > 0 else { return }
      let every = max(1, Int(photoAlarmsPerSecond * 3 / Double(phonesPerSecond)))
      var seen = 0
      while !Task.isCancelled {
        for push in pushes.readNew() {
          guard let url = push.imageURL, pushes.isFirstOfNotification(push) else { continue }
          seen += 1
          if seen % every == 0 { await phone.follow(url) }
        }
        try? await Task.sleep(for: .milliseconds(100))
      }
    }
    let samplingTask = Task { await sampler.run(every: .seconds(1)) }

    let mix = AlarmMix(mowers: settings.mowers)
    // Warm-up, not measured: the first pushes open the HTTP/2 connections to APNs, the
    // first requests fill the pools.
    _ = try await rig.publishAtRate(
      publisher, rate: settings.rate, count: min(settings.rate * 3, 300), alarm: mix.alarm)
    try await Task.sleep(for: .seconds(2))
    let loadStart = Date()
    let probe = LoadedFloorProbe(seconds: settings.seconds)
    let loadedFloors = Task { await probe.measureOrReport(pool: db.pool, rig: rig) }
    let sent = try await rig.publishAtRate(
      publisher, rate: settings.rate, count: settings.rate * settings.seconds, alarm: mix.alarm
    ).requireAllAcknowledged()
    let loadSeconds = Date().timeIntervalSince(loadStart)
    floors.underLoad = await loadedFloors.value

    // Let every photo end (a silent camera ends at the photo timeout) and the phone finish.
    // A pipeline that cannot keep up leaves a backlog: reported, not waited for forever.
    var backlog = 0
    do {
      try await eventually(timeout: .seconds(90), "the pipeline to settle") {
        try await PipelineBacklog.read(db: db).stored == 0
      }
    } catch is TimedOut {
      backlog = try await PipelineBacklog.read(db: db).stored
    }
    try await Task.sleep(for: .seconds(2))
    await phone.finish()
    follower.cancel()
    samplingTask.cancel()
    await sampler.stop()

    let collected = try await collect(db: db, rig: rig, sent: sent, loadStart: loadStart)
    // Peak RSS is read from the live processes: before they stop.
    let usage = await sampler.usage(warmUp: Double(settings.warmUp))
    // The next run of a matrix should not pay for this one: no old tables for autovacuum
    // to visit, no dirty pages for the kernel to write back during it. The workers stop
    // first, so none of them finds its tables gone. (A run that fails leaves its schema.)
    rig.stop()
    try await db.pool.query("DROP SCHEMA \(identifier: db.schema) CASCADE")
    try await db.pool.query("CHECKPOINT")
    await db.pool.close()
    sync()
    return PipelineResult(
      settings: settings, timeoutPercent: timeoutPercent, loadSeconds: loadSeconds,
      alarms: sent.count, backlog: backlog, floors: floors, collected: collected,
      fetch: await phone.storedToFetch(stored: collected.storedByNotification),
      phone: await phone.summary, usage: usage,
      machineBusyPercent: await sampler.machineBusyPercent, timeline: await sampler.timeline)
  }

  /// Reads the pipeline's own record: the sandbox's pushes and the event log.
  private func collect(db: TestDatabase, rig: PipelineRig, sent: [String: Date], loadStart: Date)
    async throws -> PipelineCollected
  {
    var collected = PipelineCollected()
    var eventOf: [String: String] = [:]
    var imageOf: [String: String] = [:]
    for row in try await db.pool.query(
      "SELECT notification_id::text AS n, event_id::text AS e, image_id::text AS i FROM notifications"
    ) {
      eventOf[try row.string("n")] = try row.string("e")
      if let image = try row.optionalString("i") { imageOf[try row.string("n")] = image }
    }
    var firstPush: [String: Date] = [:]
    var pushTimes: [Date] = []
    // Only the pipeline's pushes: the floor probe's requests carry no notification.
    for push in PushTail(record: rig.record).readNew()
    where push.time >= loadStart && push.notificationID != nil {
      pushTimes.append(push.time)
      guard let event = push.notificationID.flatMap({ eventOf[$0] }) else { continue }
      if firstPush[event].map({ push.time < $0 }) ?? true { firstPush[event] = push.time }
    }
    collected.pushes = pushTimes.count
    if let first = pushTimes.min(), let last = pushTimes.max(), last > first {
      collected.pushSpan = last.timeIntervalSince(first)
    }
    // The split: `alarm.received` is stamped (clock_timestamp) by the fan-out's write
    // statement, inside its transaction: the rest of that statement and the COMMIT fall
    // on the second side.
    var decidedAt: [String: Date] = [:]
    for row in try await db.pool.query(
      "SELECT correlation_id::text AS e, recorded_at AS t FROM events WHERE type = 'alarm.received'"
    ) {
      decidedAt[try row.string("e")] = try row.date("t")
    }
    for (event, published) in sent {
      guard let pushed = firstPush[event] else { continue }
      let latency = pushed.timeIntervalSince(published)
      collected.alarmToPush.add(latency)
      collected.pushLatencies.append((published.timeIntervalSince(loadStart), latency))
      if let decided = decidedAt[event] {
        collected.alarmToDecided.add(decided.timeIntervalSince(published))
        collected.decidedToPush.add(pushed.timeIntervalSince(decided))
      }
    }
    collected.pushLatencies.sort { $0.at < $1.at }
    var storedAt: [String: Date] = [:]
    for row in try await db.pool.query(
      """
      SELECT correlation_id::text AS e, data->>'image_id' AS i, recorded_at AS t FROM events WHERE type = 'photo.captured'
      """)
    {
      let stored = try row.date("t")
      storedAt[try row.string("i")] = stored
      if let published = sent[try row.string("e")] {
        collected.alarmToStored.add(stored.timeIntervalSince(published))
      }
    }
    for (notification, image) in imageOf {
      collected.storedByNotification[notification] = storedAt[image]
    }
    for row in try await db.pool.query(
      "SELECT correlation_id::text AS e FROM events WHERE type = 'photo.failed'")
    where sent[try row.string("e")] != nil {
      collected.photosFailed += 1
    }
    return collected
  }
}

/// What the pipeline recorded about one run.
struct PipelineCollected {
  var pushes = 0
  var pushSpan = 0.0
  var alarmToPush = Samples()
  /// (seconds since the load began, alarm-to-push latency), by publish time.
  var pushLatencies: [(at: Double, latency: Double)] = []
  /// The two stages of alarm -> push: the fan-out (publish to its commit), then the
  /// delivery (commit to the push at the sandbox).
  var alarmToDecided = Samples()
  var decidedToPush = Samples()
  var alarmToStored = Samples()
  /// When the photo of each notification was stored.
  var storedByNotification: [String: Date] = [:]
  var photosFailed = 0
}

/// The three floors of one measurement: a bare insert and commit, a NATS round trip, one
/// request to the sandbox.
struct FloorSamples {
  var postgres = Samples()
  var nats = Samples()
  var sandbox = Samples()
  /// One hop of each at its median.
  var medianSum: Double { postgres.median + nats.median + sandbox.median }
  /// One hop of each at its tail: beside a load, what the pipeline's own p99 is set against.
  var p99Sum: Double { postgres.p99 + nats.p99 + sandbox.p99 }
}

struct PipelineFloors {
  /// Back to back on the quiet machine, before the load.
  var quiet = FloorSamples()
  /// The same three, probed ten times a second while the load runs, on the machine as busy
  /// as the pipeline finds it.
  var underLoad: FloorSamples?
  /// The time an alarm's push cannot beat: a NATS hop, a commit, the sandbox's answer,
  /// each at its median on the quiet machine before the load. The targets use this one.
  var sum: Double { quiet.medianSum }
}

/// Probes the three floors ten times a second each for the length of the load. The
/// probe's own cost is small beside the load (30 round trips a second against hundreds of
/// alarms' worth), and the same in every run. A rough comparison, not a floor in the
/// strict sense: a stall delays one probe but every alarm caught in it, and a sum of p99s
/// is more than the p99 of one hop of each.
struct LoadedFloorProbe {
  let seconds: Int
  static let perSecond = 10

  /// The probe's figures, or nil with a line saying why: a probe that fails must not take
  /// the run's own results with it.
  func measureOrReport(pool: DatabasePool, rig: PipelineRig) async -> FloorSamples? {
    do {
      // A connection of its own: the load generator's publishes are requests on the
      // shared one, and would queue the probe's round trips behind them.
      let nats = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "bench-floor-probe", logger: TestServers.logger)
      defer { nats.close() }
      return try await measure(pool: pool, nats: nats, rig: rig)
    } catch {
      print("the floors beside the load were not measured: \(error)")
      return nil
    }
  }

  private func measure(pool: DatabasePool, nats: NATSClient, rig: PipelineRig) async throws
    -> FloorSamples
  {
    let count = seconds * Self.perSecond
    let every = Duration.seconds(1) / Self.perSecond
    // curl runs to its end in a child process: on a thread of its own, not the
    // cooperative pool's, which the load generator needs.
    let sandbox = Task {
      try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
          continuation.resume(
            with: Result { try rig.sandboxAnswerTimes(count: count, perSecond: Self.perSecond) })
        }
      }
    }
    async let postgres = Floors.postgresInsertCommit(pool: pool, count: count, every: every)
    async let round = Floors.natsRoundTrip(
      nats: nats, subject: rig.subjects.prefix + "loaded-floor", count: count, every: every)
    var floors = FloorSamples()
    floors.postgres = try await postgres
    floors.nats = try await round
    floors.sandbox = try await sandbox.value
    return floors
  }
}
