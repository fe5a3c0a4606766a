import Foundation

/// A moment between two steps of the ramp: the end of one is the start of the next.
struct RampBoundary {
  let date: Date
  /// The `ProcessSampler` sample taken then.
  let sampled: Double
  let backlog: PipelineBacklog
  let handoffs: FanoutHandoffs
  let photos: PhotoOutcomes
}

/// One step of the ramp, measured: what was published, what reached the sandbox, how long
/// the step's alarms took, and the stack's backlog and processes.
struct RampStep {
  let rate: Int
  let start: RampBoundary
  let end: RampBoundary
  let published: Int
  /// Publishes of the step that JetStream did not acknowledge in time: the broker itself
  /// could not take the rate.
  let unacknowledged: Int
  /// Pushes seen at the sandbox between the step's start and end, whichever alarm's.
  let pushes: Int
  /// Alarm to first push of each of the step's alarms that was pushed by the cutoff, and,
  /// for each one not pushed by then, its age at the cutoff (a lower bound of its latency).
  let latencies: Samples
  /// The step's alarms decided to push (or not decided at all) but not pushed by the cutoff.
  let notPushed: Int
  /// The smallest age among those; an alarm not pushed is at least this late.
  let youngestNotPushed: Double?
  /// Alarms the fan-out decided not to push (cooldowns): no push to wait for.
  let suppressed: Int
  /// Every sampled process over the step, servers included.
  let processes: [(name: String, cpuPercent: Double, largestRSS: Double?)]

  var seconds: Double { end.date.timeIntervalSince(start.date) }
  var publishedPerSecond: Double { Double(published) / seconds }
  var pushesPerSecond: Double { Double(pushes) / seconds }
  var commitsPerSecond: Double { Double(end.backlog.commits - start.backlog.commits) / seconds }
  var handoffs: FanoutHandoffs { end.handoffs - start.handoffs }
  /// Photo outcomes recorded during the step (of alarms of this step and the one before:
  /// a capture takes the camera's latency).
  var photos: PhotoOutcomes { end.photos - start.photos }

  var median: Double { latencies.median }
  var p99: Double { latencies.p99 }
  /// Whether a percentile might be larger than shown: when some alarm not pushed is no
  /// older than it, that alarm's real latency could move it. Alarms older than it cannot.
  func isLowerBound(_ value: Double) -> Bool {
    youngestNotPushed.map { $0 <= value } ?? false
  }

  /// What the waiting backlog may grow by and the step still count as keeping up: a
  /// second of the step's alarms. One reading at each end catches batches in flight (up
  /// to a few hundred alarms and their deliveries at high rates), not a trend.
  var tolerance: Int { rate }
  var backlogGrowth: Int { end.backlog.waiting - start.backlog.waiting }
  var keptUp: Bool { backlogGrowth <= tolerance }
  /// The p99 is judged exactly: the cutoff falls at least a second after the step's last
  /// publish, so an alarm not pushed by then is over the second whatever its latency.
  var fastEnough: Bool { latencies.count > 0 && p99 < 1 }
  var sustained: Bool { keptUp && fastEnough && unacknowledged == 0 }

  /// Why a step was not sustained, or "yes".
  var verdict: String {
    var reasons: [String] = []
    if !fastEnough { reasons.append("p99 >= 1 s") }
    if !keptUp { reasons.append("backlog +\(backlogGrowth)") }
    if unacknowledged > 0 { reasons.append("\(unacknowledged) publishes unacknowledged") }
    return reasons.isEmpty ? "yes" : "no: " + reasons.joined(separator: ", ")
  }

  /// The process that used the most CPU over the step.
  var busiest: (name: String, cpuPercent: Double)? {
    processes.max { $0.cpuPercent < $1.cpuPercent }.map { ($0.name, $0.cpuPercent) }
  }

  /// The worker with the largest resident set sampled during the step.
  var largestWorker: (name: String, rss: Double)? {
    processes.filter { $0.name.hasSuffix("Worker") }
      .compactMap { item in item.largestRSS.map { (item.name, $0) } }
      .max { $0.1 < $1.1 }
  }

  /// CPU per process type, replicas summed, busiest first.
  var cpuByType: [(name: String, cpuPercent: Double)] {
    var sums: [String: Double] = [:]
    for item in processes { sums[item.name, default: 0] += item.cpuPercent }
    return sums.map { ($0.key, $0.value) }.sorted { $0.1 > $1.1 }
  }
}
