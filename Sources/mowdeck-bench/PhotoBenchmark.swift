import Events
import Foundation
import Infrastructure
import TestSupport

/// Issue 3's benchmark: the PhotoWorker's overhead from the camera's answer to the committed
/// row for a 20 KB and a 480 KB frame, many photos in flight at once, and peak RSS.
struct PhotoBenchmark {
  let db: TestDatabase
  let nats: NATSClient
  let photos: Int
  let inFlight: Int
  let floodPhotos: Int

  func run() async throws -> String {
    var table = TextTable("run", "photos", "median", "p99", "max", "wall", "worker peak RSS")
    for (name, bytes) in [("small.jpg", "20 KB"), ("near-limit.jpg", "480 KB")] {
      let frame = Array(
        try Data(contentsOf: URL(fileURLWithPath: TestServers.fixture("photos/" + name))))
      let floor = try await Floors.postgresInsertCommit(pool: db.pool, payload: frame, count: 200)
      table.add(
        "floor: insert+commit of \(bytes) bytea", "\(floor.count)", ms(floor.median), ms(floor.p99),
        ms(floor.maximum), "", "")
      for perTick in [1, 5] {
        let run = try await measure(frameFile: name, photos: photos, latency: "0", perTick: perTick)
        table.add(
          "reply -> committed row, \(bytes), \(perTick * 20)/s", "\(run.samples.count)",
          ms(run.samples.median), ms(run.samples.p99), ms(run.samples.maximum),
          String(format: "%.1f s", run.wall), run.rss)
      }
    }
    let burst = try await measure(
      frameFile: "small.jpg", photos: inFlight, latency: "2000", perTick: nil)
    table.add(
      "\(inFlight) in flight, 2 s camera, 20 KB", "\(burst.samples.count)",
      ms(burst.samples.median), ms(burst.samples.p99), ms(burst.samples.maximum),
      String(format: "%.1f s", burst.wall), burst.rss)
    // ADRs 0017 and 0019: a sustained flood of large frames, more than the store takes.
    // The photos waiting for it are bounded by the held-bytes budget (the default), or,
    // with the budget out of the way, by the requests in flight (the default and a quarter).
    let floods: [(name: String, settings: [String: String])] = [
      ("default budget (16 MiB), 1000 in flight", [:]),
      ("8 MiB budget, 1000 in flight", ["MOWDECK_PHOTO_MAX_HELD_BYTES": String(8 << 20)]),
      ("no budget, 1000 in flight", ["MOWDECK_PHOTO_MAX_HELD_BYTES": String(1 << 40)]),
      (
        "no budget, 250 in flight",
        ["MOWDECK_PHOTO_MAX_HELD_BYTES": String(1 << 40), "MOWDECK_PHOTO_MAX_IN_FLIGHT": "250"]
      ),
    ]
    for (name, settings) in floods {
      let flood = try await measure(
        frameFile: "near-limit.jpg", photos: floodPhotos, latency: "5000", perTick: 15,
        settings: settings)
      table.add(
        "480 KB at 300/s, 5 s camera, \(name)",
        "\(flood.samples.count) (\(flood.shed) shed, \(flood.stale) stale)",
        ms(flood.samples.median), ms(flood.samples.p99), ms(flood.samples.maximum),
        String(format: "%.1f s", flood.wall), flood.rss)
    }
    return table.render()
  }

  /// Starts a simulator serving one frame and a PhotoWorker, reserves `photos` photos
  /// (`perTick` every 50 ms — 20 a second for 1, 100 for 5 — or all at once), and reads each
  /// capture's store time from the worker's debug log.
  private func measure(
    frameFile: String, photos: Int, latency: String, perTick: Int?,
    settings: [String: String] = [:]
  ) async throws -> (samples: Samples, wall: Double, rss: String, shed: Int, stale: Int) {
    let prefix = uniqueSubjectPrefix()
    let subjects = Subjects(prefix: prefix)
    let frames = FileManager.default.temporaryDirectory.appendingPathComponent("frames-\(prefix)")
    try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: TestServers.fixture("photos/" + frameFile),
      toPath: frames.appendingPathComponent(frameFile).path)
    var environment = try WorkerProcess.environment(database: db, subjectPrefix: prefix)
    environment["MOWDECK_LOG_LEVEL"] = "debug"
    environment.merge(settings) { $1 }
    let simulator = try WorkerProcess(
      "GatewaySimulator", arguments: ["--frames", frames.path, "--latency-ms", latency],
      environment: environment)
    let worker = try WorkerProcess("PhotoWorker", environment: environment)
    defer {
      worker.stop()
      simulator.stop()
    }
    try await eventually(timeout: .seconds(20), "workers to start") {
      worker.log.contains("photo worker running") && simulator.log.contains("listening")
    }
    let before = try await db.count(
      "SELECT count(*) AS n FROM photo_reservations WHERE state <> 'pending'")
    let start = ContinuousClock.now
    let batch = perTick ?? photos
    var reserved = 0
    while reserved < photos {
      let count = min(batch, photos - reserved)
      try await db.reservePhotos(count: count, mowerPrefix: "bench-")
      try nats.publish(subjects.wakePhotos)
      reserved += count
      if perTick != nil { try await Task.sleep(for: .milliseconds(50)) }
    }
    try await eventually(timeout: .seconds(120), "all photos") {
      try await db.count("SELECT count(*) AS n FROM photo_reservations WHERE state <> 'pending'")
        - before >= photos
    }
    let wall = (ContinuousClock.now - start).seconds
    let rss = peakRSSMiB(pid: worker.pid).map { String(format: "%.1f MiB", $0) } ?? "?"
    var samples = Samples()
    var shed = 0
    // Outcomes that found their reservation ended or taken over: a lease that lapsed.
    var stale = 0
    for line in worker.log.split(separator: "\n") where line.contains("\"photo outcome\"") {
      guard let outcome = try? WireCoding.decode(PhotoOutcomeLine.self, from: Array(line.utf8))
      else { continue }
      if let micros = outcome.store_us { samples.add(Double(micros) / 1_000_000) }
      if outcome.outcome == "store_overloaded" { shed += 1 }
      if outcome.stored == false { stale += 1 }
    }
    return (samples, wall, rss, shed, stale)
  }
}

/// The fields of the PhotoWorker's "photo outcome" log line that the benchmark counts.
private struct PhotoOutcomeLine: Decodable {
  // The log's own field names.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  var store_us: Int?
  var outcome: String?
  var stored: Bool?
}
