import Foundation
import Infrastructure

/// Everything a ramp measured, and how it is shown: a line per step as the ramp goes, the
/// table with the highest sustained step marked, where the time went at that step, and CSV
/// files (`ramp-c<camera>.csv`, one row a step; `ramp-cpu-c<camera>.csv`, one row a
/// process type and step).
struct RampResult {
  let settings: RampSettings
  let steps: [RampStep]
  /// Two steps in a row were not sustained and the ramp did not go on.
  let stoppedEarly: Bool
  /// The worker with the largest peak RSS over the whole ramp, and that peak (MiB).
  let largestPeakRSS: (name: String, mib: Double)?

  var highestSustained: RampStep? {
    steps.filter(\.sustained).max { $0.rate < $1.rate }
  }

  static func header(_ settings: RampSettings, serversSampled: Bool) -> String {
    let s = settings.pipeline
    let rates = settings.rates.map(String.init).joined(separator: ", ")
    let servers =
      serversSampled
      ? "postgres is the server with all its backends"
      : "PostgreSQL and nats-server not sampled (MOWDECK_BENCH_SERVERS unset: run through "
        + "scripts/bench.sh)"
    return "pipeline ramp: \(rates) alarms/s, \(settings.stepSeconds) s a step, camera "
      + "\(s.cameraMs) ms with \(Int((s.timeouts * 100).rounded()))% never answering, "
      + "\(s.replicas) replicas of each worker, \(s.mowers) mowers x 3 phones\n"
      + "alarm mix: 10% theft, 20% mower_stuck (both ask for a photo), 70% routine; " + servers
  }

  /// A step's line as the ramp goes.
  static func row(_ step: RampStep) -> String {
    "\(step.rate) alarms/s: "
      + String(
        format: "%.1f published/s, %.1f pushes/s, ", step.publishedPerSecond,
        step.pushesPerSecond)
      + "p99 \(latency(step.p99, step)), backlog \(step.end.backlog.total) "
      + "(waiting \(step.start.backlog.waiting) -> \(step.end.backlog.waiting)), "
      + "sustained: \(step.verdict)"
  }

  func table() -> String {
    var table = TextTable(
      "alarms/s", "sent/s", "pushes/s", "push median", "push p99", "not pushed", "backlog",
      "at camera", "waiting start -> end", "busiest (% of a core)", "largest worker RSS",
      "commits/s", "handoffs taken/refused/paused", "photos stored/failed (own)", "sustained")
    let best = highestSustained?.rate
    for step in steps {
      table.add(
        "\(step.rate)", String(format: "%.1f", step.publishedPerSecond),
        String(format: "%.1f", step.pushesPerSecond), Self.latency(step.median, step),
        Self.latency(step.p99, step), "\(step.notPushed)", "\(step.end.backlog.total)",
        "\(step.end.backlog.photosAtCamera)",
        "\(step.start.backlog.waiting) -> \(step.end.backlog.waiting)",
        step.busiest.map { $0.name + String(format: " %.0f%%", $0.cpuPercent) } ?? "",
        step.largestWorker.map { $0.name + String(format: " %.1f MiB", $0.rss) } ?? "",
        String(format: "%.0f", step.commitsPerSecond), step.handoffs.cell, step.photos.cell,
        step.verdict + (step.rate == best ? "  <- highest sustained" : ""))
    }
    let grace = String(format: "%.0f", settings.graceSeconds)
    let ownReasons = PhotoOutcomes.ownReasons.joined(separator: ", ")
    let notes = [
      "sustained: p99 alarm -> push under 1 s, and the waiting backlog grew by no more than "
        + "one second of the step's alarms",
      "waiting: the fan-out consumer's pending and unacknowledged alarms, photo reservations "
        + "no PhotoWorker holds, queued deliveries; backlog adds the requests out at the camera",
      "handoffs: the fan-out's offers of APNs deliveries taken and refused (each refusal "
        + "costs a release and a claim), and decisions that offered none while paused",
      "photos: outcomes recorded in the step, stored and failed; (own): failed for the photo "
        + "stage's own reasons (\(ownReasons)), the rest are the camera's",
      "push median and p99: each alarm published in the step to its first push; an alarm not "
        + "pushed \(grace) s after the step counts with its age then (>= marks a figure such "
        + "an alarm could raise); alarms the fan-out suppressed are left out",
    ]
    var text = table.render() + "\n" + notes.joined(separator: "\n")
    if stoppedEarly, let last = steps.last {
      text += "\nstopped after \(last.rate) alarms/s: two steps in a row not sustained"
    }
    return text
  }

  /// Where the time went at the highest sustained step, and the memory target.
  func summary() -> String {
    var lines: [String] = []
    if let step = highestSustained {
      lines.append(
        "highest sustained: \(step.rate) alarms/s. Where the time goes there "
          + "(CPU, % of one core, replicas summed):")
      var cpu = TextTable("process", "CPU")
      for item in step.cpuByType {
        cpu.add(item.name, String(format: "%.0f%%", item.cpuPercent))
      }
      let total = step.cpuByType.reduce(0) { $0 + $1.cpuPercent }
      let cores = ProcessInfo.processInfo.activeProcessorCount
      cpu.add("all of the above", String(format: "%.0f%%", total) + " of \(cores * 100)%")
      lines.append(cpu.render())
      lines.append(
        String(format: "commits a second (pg_stat_database): %.0f", step.commitsPerSecond))
    } else {
      lines.append("no step was sustained")
    }
    if let largest = largestPeakRSS {
      lines.append(rssVerdict(largestMiB: largest.mib, of: largest.name) + " at any rate")
    }
    return lines.joined(separator: "\n")
  }

  func write(to directory: URL) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let camera = settings.pipeline.cameraMs
    var rows =
      "rate,seconds,published,published_per_s,pushes_per_s,push_p50_ms,push_p99_ms,"
      + "not_pushed,suppressed,backlog,at_camera,waiting_start,waiting_end,busiest,"
      + "busiest_cpu_percent,largest_worker,largest_worker_rss_mib,commits_per_s,"
      + "handoffs_taken,handoffs_refused,handoffs_paused,photos_stored,photos_failed,"
      + "photos_failed_own,sustained\n"
    var cpu = "rate,process,cpu_percent\n"
    for step in steps {
      let cells: [String] = [
        "\(step.rate)", String(format: "%.3f", step.seconds), "\(step.published)",
        String(format: "%.3f", step.publishedPerSecond),
        String(format: "%.3f", step.pushesPerSecond), String(format: "%.3f", step.median * 1000),
        String(format: "%.3f", step.p99 * 1000), "\(step.notPushed)", "\(step.suppressed)",
        "\(step.end.backlog.total)", "\(step.end.backlog.photosAtCamera)",
        "\(step.start.backlog.waiting)", "\(step.end.backlog.waiting)",
        step.busiest?.name ?? "", String(format: "%.1f", step.busiest?.cpuPercent ?? 0),
        step.largestWorker?.name ?? "", String(format: "%.2f", step.largestWorker?.rss ?? 0),
        String(format: "%.1f", step.commitsPerSecond), String(format: "%.0f", step.handoffs.taken),
        String(format: "%.0f", step.handoffs.refused),
        String(format: "%.0f", step.handoffs.paused), "\(step.photos.stored)",
        "\(step.photos.failedTotal)", "\(step.photos.failedOwn)", step.sustained ? "1" : "0",
      ]
      rows += cells.joined(separator: ",") + "\n"
      for item in step.cpuByType {
        cpu += "\(step.rate),\(item.name)," + String(format: "%.1f", item.cpuPercent) + "\n"
      }
    }
    try rows.write(
      to: directory.appendingPathComponent("ramp-c\(camera).csv"), atomically: true,
      encoding: .utf8)
    try cpu.write(
      to: directory.appendingPathComponent("ramp-cpu-c\(camera).csv"), atomically: true,
      encoding: .utf8)
  }

  /// A latency in milliseconds, with ">=" when an alarm not pushed could raise it.
  private static func latency(_ seconds: Double, _ step: RampStep) -> String {
    (step.isLowerBound(seconds) ? ">= " : "") + ms(seconds)
  }
}
