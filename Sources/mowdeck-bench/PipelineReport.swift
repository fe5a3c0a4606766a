import Events
import Foundation
import Infrastructure

/// Everything one pipeline run measured, and how it is shown: one table for people, CSV
/// files for the plots (`scripts/plot-bench.sh`).
struct PipelineResult {
  let settings: PipelineSettings
  let timeoutPercent: Int
  let loadSeconds: Double
  let alarms: Int
  /// Photos pending and deliveries queued 90 s after the load: what the stack could not
  /// keep up with.
  let backlog: Int
  let floors: PipelineFloors
  let collected: PipelineCollected
  let fetch: Samples
  let phone: (followed: Int, attached: Int, gaveUp: Int)
  let usage: [ProcessSampler.Usage]
  let machineBusyPercent: Double?
  let timeline: (columns: [String], rows: [[Double]])

  var label: String {
    (settings.name.isEmpty ? "" : settings.name + "-") + "r\(settings.rate)-c\(settings.cameraMs)"
  }
  var push: Samples { collected.alarmToPush }
  var pushRatio: Double { push.p99 / floors.sum }
  /// The same p99 over the sum of the floors' p99s probed beside the load, if they were.
  var loadedRatio: Double? { floors.underLoad.map { push.p99 / $0.p99Sum } }
  /// The workers' usage (the sandbox and the benchmark itself are not workers).
  var workerUsage: [ProcessSampler.Usage] { usage.filter { $0.name.hasSuffix("Worker") } }
  var maxPeakRSS: Double { workerUsage.map(\.peakRSS).max() ?? 0 }

  func table() -> String {
    let s = settings
    var header =
      "pipeline: \(s.rate) alarms/s for \(s.seconds) s, camera \(s.cameraMs) ms with "
      + "\(timeoutPercent)% never answering, \(s.replicas) replicas of each worker, "
      + "\(s.mowers) mowers x 3 phones\n"
    header +=
      "alarm mix: 10% theft, 20% mower_stuck (both ask for a photo), 70% routine\n"
    var table = TextTable("figure", "n", "median", "p99", "max", "floor", "p99 / floor")
    table.add("alarms/s published", "\(alarms)", rate(Double(alarms), loadSeconds), "", "", "", "")
    table.add(
      "pushes/s at the sandbox", "\(collected.pushes)",
      rate(Double(collected.pushes), collected.pushSpan), "", "", "", "")
    table.add(
      "photos/s stored (failed)", "\(collected.alarmToStored.count)",
      rate(Double(collected.alarmToStored.count), loadSeconds),
      "(\(collected.photosFailed) failed)", "", "", "")
    table.add(
      "alarm -> push at sandbox", "\(push.count)", ms(push.median), ms(push.p99),
      ms(push.maximum), ms(floors.sum), String(format: "%.1fx", pushRatio))
    // In a long run, the same without its first minutes: every run starts on empty tables,
    // whose first autovacuum passes and writeback bursts make most of a soak's slow windows
    // (docs/benchmarks.md). The targets are still judged on the whole run.
    if s.seconds >= 4 * s.warmUp {
      var warm = Samples()
      for item in collected.pushLatencies where item.at >= Double(s.warmUp) {
        warm.add(item.latency)
      }
      table.add(
        "  after warm-up (published after \(s.warmUp) s)", "\(warm.count)", ms(warm.median),
        ms(warm.p99), ms(warm.maximum), "", "")
    }
    for (name, stage) in [
      ("  of which alarm -> fan-out write", collected.alarmToDecided),
      ("  of which write -> push at sandbox", collected.decidedToPush),
    ] {
      table.add(
        name, "\(stage.count)", ms(stage.median), ms(stage.p99), ms(stage.maximum), "", "")
    }
    let cameraFloor = Double(s.cameraMs) / 1000 + floors.sum
    let stored = collected.alarmToStored
    table.add(
      "alarm -> photo stored", "\(stored.count)", ms(stored.median), ms(stored.p99),
      ms(stored.maximum), ms(cameraFloor) + " (camera+)",
      String(format: "%.2fx", stored.p99 / cameraFloor))
    table.add(
      "photo stored -> phone fetch", "\(fetch.count)", ms(fetch.median), ms(fetch.p99),
      ms(fetch.maximum), "1000.00 ms (poll)", String(format: "%.2fx", fetch.p99 / 1))
    table.add(
      "phone: followed / attached / gave up", "\(phone.followed)", "\(phone.attached)",
      "\(phone.gaveUp)", "", "", "")
    for (name, floor) in [
      ("floor: NATS round trip", floors.quiet.nats),
      ("floor: PostgreSQL insert+commit", floors.quiet.postgres),
      ("floor: sandbox answer", floors.quiet.sandbox),
    ] {
      table.add(name, "\(floor.count)", ms(floor.median), ms(floor.p99), ms(floor.maximum), "", "")
    }
    if let loaded = floors.underLoad, let loadedRatio {
      for (name, floor) in [
        ("floor under load: NATS round trip", loaded.nats),
        ("floor under load: insert+commit", loaded.postgres),
        ("floor under load: sandbox answer", loaded.sandbox),
      ] {
        table.add(
          name, "\(floor.count)", ms(floor.median), ms(floor.p99), ms(floor.maximum), "", "")
      }
      table.add(
        "alarm -> push p99 / loaded floors' p99 sum", "", "", ms(push.p99), "",
        ms(loaded.p99Sum), String(format: "%.1fx", loadedRatio))
    }
    var workers = TextTable("worker", "replicas", "peak RSS", "CPU (% of a core)", "RSS growth")
    for item in usage {
      workers.add(
        item.name, "\(item.replicas)", String(format: "%.1f MiB", item.peakRSS),
        String(format: "%.0f%%", item.cpuPercent),
        item.rssGrowthPercent.map { String(format: "%+.1f%%", $0) } ?? "")
    }
    let machine =
      machineBusyPercent.map {
        String(
          format: "\nmachine: %.0f%% of its %d cores busy during the run", $0,
          ProcessInfo.processInfo.activeProcessorCount)
      } ?? ""
    let behind =
      backlog > 0
      ? "\nNOT KEPT UP: \(backlog) photos pending or deliveries queued 90 s after the load" : ""
    return header + table.render() + "\n\n" + workers.render() + machine + behind
  }

  /// The targets of issue 9, each with its verdict.
  func verdicts(soak: Bool) -> [String] {
    var lines: [String] = []
    if settings.rate == 100 {
      lines.append(verdictLine("p99 alarm -> push <= 20 ms at 100 alarms/s", push.p99 <= 0.020))
    }
    lines.append(verdictLine("p99 alarm -> push <= 5x the floor sum", pushRatio <= 5))
    if let loadedRatio {
      // Not a verdict: the target is judged on the quiet floors above. A rough comparison
      // (see `LoadedFloorProbe`) of the tail with what a bare request meets at the time.
      lines.append(
        String(
          format: "for comparison: p99 alarm -> push is %.1fx the sum of the floors' p99s "
            + "under the same load", loadedRatio))
    }
    lines.append(rssVerdict(largestMiB: maxPeakRSS))
    if soak {
      if let growth = workerUsage.compactMap(\.rssGrowthPercent).max() {
        lines.append(
          verdictLine(
            "RSS growth after warm-up <= 10% (largest \(String(format: "%+.1f", growth))%)",
            growth <= 10))
      } else {
        // Growth compares the minute after the warm-up with the last minute, two minutes on.
        lines.append("not measured: RSS growth (the run is too short to compare two minutes)")
      }
    }
    return lines
  }

  private func rate(_ count: Double, _ seconds: Double) -> String {
    seconds > 0 ? String(format: "%.1f/s", count / seconds) : ""
  }

  /// One CSV line for `runs.csv`.
  static let runColumns =
    "rate,camera_ms,alarms,pushes,photos,photos_failed,push_p50_ms,push_p99_ms,push_max_ms,"
    + "stored_p50_ms,stored_p99_ms,fetch_p50_ms,fetch_p99_ms,floor_sum_ms,max_rss_mib,backlog"
  var runLine: String {
    let values: [Double] = [
      Double(settings.rate), Double(settings.cameraMs), Double(alarms),
      Double(collected.pushes), Double(collected.alarmToStored.count),
      Double(collected.photosFailed), push.median * 1000, push.p99 * 1000, push.maximum * 1000,
      collected.alarmToStored.median * 1000, collected.alarmToStored.p99 * 1000,
      fetch.median * 1000, fetch.p99 * 1000, floors.sum * 1000, maxPeakRSS, Double(backlog),
    ]
    return values.map { String(format: "%.3f", $0) }.joined(separator: ",")
  }

  /// Writes `pushes-<label>.csv` (each alarm's publish time and push latency),
  /// `latency-<label>.csv` (median and p99 per 10 s of publish time) and
  /// `memory-<label>.csv` (RSS per worker type each second).
  func write(to directory: URL) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var pushes = "seconds,latency_ms,camera_ms\n"
    for item in collected.pushLatencies {
      pushes += String(format: "%.3f,%.3f,%d\n", item.at, item.latency * 1000, settings.cameraMs)
    }
    try pushes.write(
      to: directory.appendingPathComponent("pushes-\(label).csv"), atomically: true,
      encoding: .utf8)
    var windows = "seconds,p50_ms,p99_ms,max_ms,n\n"
    let grouped = Dictionary(grouping: collected.pushLatencies) { Int($0.at / 10) }
    for key in grouped.keys.sorted() {
      var samples = Samples()
      for item in grouped[key]! { samples.add(item.latency) }
      windows += String(
        format: "%d,%.3f,%.3f,%.3f,%d\n", key * 10, samples.median * 1000, samples.p99 * 1000,
        samples.maximum * 1000, samples.count)
    }
    try windows.write(
      to: directory.appendingPathComponent("latency-\(label).csv"), atomically: true,
      encoding: .utf8)
    var memory = timeline.columns.joined(separator: ",") + "\n"
    for row in timeline.rows {
      memory += row.map { String(format: "%.2f", $0) }.joined(separator: ",") + "\n"
    }
    try memory.write(
      to: directory.appendingPathComponent("memory-\(label).csv"), atomically: true,
      encoding: .utf8)
  }
}

/// A target's line: met or not, then what it asks.
func verdictLine(_ text: String, _ met: Bool) -> String {
  (met ? "met:     " : "NOT MET: ") + text
}

/// Issue 9's memory target against the largest peak RSS of any worker (MiB as sampled; the
/// target is in MB).
func rssVerdict(largestMiB: Double, of worker: String = "") -> String {
  let megabytes = largestMiB * 1.048576
  let whose = worker.isEmpty ? "" : worker + " "
  return verdictLine(
    "no worker over 64 MB RSS (largest \(whose)\(String(format: "%.1f", megabytes)) MB)",
    megabytes <= 64)
}
