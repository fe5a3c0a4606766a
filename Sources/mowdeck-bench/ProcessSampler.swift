import Foundation
import TestSupport

/// Samples the memory and CPU of the stack's processes once a second while a benchmark
/// runs: the peaks for the table, the series for the soak's drift check and its plot.
actor ProcessSampler {
  struct Sample {
    let at: Double
    /// Current resident set of each process, in MiB, by pid.
    let rss: [Int32: Double]
    let cpu: [Int32: Double]
  }

  /// Per worker type: the largest peak RSS of its replicas, its CPU as a share of one
  /// core over the run (all replicas together), and the largest RSS growth of one replica:
  /// its mean over the last minute against its mean over the minute after the warm-up (a
  /// mean, because a serving process's RSS swings with the photos in flight).
  struct Usage {
    let name: String
    let replicas: Int
    let peakRSS: Double
    let cpuPercent: Double
    let rssGrowthPercent: Double?
  }

  /// `withChildren`: a server, sampled with its children (PostgreSQL's backends) for CPU
  /// only, since its backends' resident sets share its buffers and would not add up.
  private let processes: [(name: String, pid: Int32, withChildren: Bool)]
  /// The process types, in the order first seen.
  private let names: [String]
  private let start = ContinuousClock.now
  private var samples: [Sample] = []
  private var running = true

  /// The machine's busy and total jiffies (/proc/stat) at the first and latest sample.
  private var machineFirst: (busy: Double, total: Double)?
  private var machineLast: (busy: Double, total: Double)?

  /// - Parameters:
  ///   - processes: the stack's processes; this one (the load and the phones) is sampled
  ///     too, as "mowdeck-bench".
  ///   - servers: PostgreSQL and nats-server (`benchServers()`), for their CPU.
  init(processes: [WorkerProcess], servers: [(name: String, pid: Int32)] = []) {
    self.processes =
      processes.map { ($0.name, $0.pid, false) } + [("mowdeck-bench", getpid(), false)]
      + servers.map { ($0.name, $0.pid, true) }
    names = self.processes.map(\.name).reduce(into: [String]()) {
      if !$0.contains($1) { $0.append($1) }
    }
  }

  /// The share of all cores busy between the first and the latest sample.
  var machineBusyPercent: Double? {
    guard let first = machineFirst, let last = machineLast, last.total > first.total else {
      return nil
    }
    return (last.busy - first.busy) / (last.total - first.total) * 100
  }

  /// Waits until the machine has been below `percent` busy for a whole `span`, or `limit`
  /// has passed; returns the seconds waited beyond the first span. Waiting for the disk
  /// counts as busy here. A run that starts while the last one's writeback and autovacuum
  /// still go on measures them instead.
  static func waitForQuietMachine(
    below percent: Double = 15, span: Duration = .seconds(2), limit: Duration = .seconds(60)
  ) async -> Double {
    let started = ContinuousClock.now
    while ContinuousClock.now - started < limit {
      guard let before = machineJiffies(countingIOWait: true) else { break }
      try? await Task.sleep(for: span)
      guard let after = machineJiffies(countingIOWait: true), after.total > before.total else {
        break
      }
      if (after.busy - before.busy) / (after.total - before.total) * 100 < percent { break }
    }
    return max(0, (ContinuousClock.now - started - span).seconds)
  }

  /// - Parameter countingIOWait: whether time waiting for the disk is busy (it is idle
  ///   for the CPU figures).
  private static func machineJiffies(countingIOWait: Bool = false) -> (
    busy: Double, total: Double
  )? {
    guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
      let line = stat.split(separator: "\n").first
    else { return nil }
    // cpu user nice system idle iowait irq softirq steal ...
    let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    guard values.count >= 5 else { return nil }
    let total = values.reduce(0, +)
    return (total - values[3] - (countingIOWait ? 0 : values[4]), total)
  }

  func run(every interval: Duration) async {
    while running && !Task.isCancelled {
      take()
      try? await Task.sleep(for: interval)
    }
  }

  func stop() {
    running = false
    take()
  }

  private func take() {
    var rss: [Int32: Double] = [:]
    var cpu: [Int32: Double] = [:]
    for process in processes {
      if !process.withChildren { rss[process.pid] = currentRSSMiB(pid: process.pid) }
      cpu[process.pid] = cpuSeconds(pid: process.pid, withChildren: process.withChildren)
    }
    samples.append(Sample(at: (ContinuousClock.now - start).seconds, rss: rss, cpu: cpu))
    machineLast = Self.machineJiffies()
    if machineFirst == nil { machineFirst = machineLast }
  }

  /// Takes a sample now and returns its time, to bound a window (a ramp's step) exactly.
  func mark() -> Double {
    take()
    return samples[samples.count - 1].at
  }

  /// Each process's CPU as a share of one core between the samples at `from` and `to`
  /// (times `mark()` returned), and the largest RSS sampled in between (nil for a server).
  func window(from: Double, to: Double) -> [(
    name: String, cpuPercent: Double, largestRSS: Double?
  )] {
    let inside = samples.filter { $0.at >= from && $0.at <= to }
    guard let first = inside.first, let last = inside.last, last.at > first.at else { return [] }
    return processes.map { process in
      let used = (last.cpu[process.pid] ?? 0) - (first.cpu[process.pid] ?? 0)
      return (
        process.name, used / (last.at - first.at) * 100,
        inside.compactMap { $0.rss[process.pid] }.max()
      )
    }
  }

  /// PostgreSQL's postmaster and the nats-server that `scripts/bench.sh` started, from the
  /// pid files in the directory it exports as `MOWDECK_BENCH_SERVERS`; none without it.
  static func benchServers() -> [(name: String, pid: Int32)] {
    guard let directory = ProcessInfo.processInfo.environment["MOWDECK_BENCH_SERVERS"] else {
      return []
    }
    // postmaster.pid's first line is the pid; nats/pid holds only the pid.
    let files = [("postgres", "pg/data/postmaster.pid"), ("nats-server", "nats/pid")]
    return files.compactMap { name, file in
      guard
        let text = try? String(contentsOfFile: directory + "/" + file, encoding: .utf8),
        let line = text.split(separator: "\n").first,
        let pid = Int32(line.trimmingCharacters(in: .whitespaces))
      else { return nil }
      return (name, pid)
    }
  }

  func usage(warmUp: Double) -> [Usage] {
    guard let first = samples.first, let last = samples.last, last.at > first.at else { return [] }
    let warm = samples.first { $0.at >= warmUp }
    return names.map { name in
      let pids = processes.filter { $0.name == name }.map(\.pid)
      let peak = pids.compactMap { peakRSSMiB(pid: $0) }.max() ?? 0
      let cpu = pids.reduce(0.0) { total, pid in
        total + (last.cpu[pid] ?? 0) - (first.cpu[pid] ?? 0)
      }
      var growth: Double?
      if let warm, last.at - warm.at >= 120 {
        let early = samples.filter { $0.at >= warm.at && $0.at < warm.at + 60 }
        let late = samples.filter { $0.at > last.at - 60 }
        growth = pids.compactMap { pid -> Double? in
          let before = early.compactMap { $0.rss[pid] }
          let after = late.compactMap { $0.rss[pid] }
          guard !before.isEmpty, !after.isEmpty else { return nil }
          let meanBefore = before.reduce(0, +) / Double(before.count)
          let meanAfter = after.reduce(0, +) / Double(after.count)
          return (meanAfter - meanBefore) / meanBefore * 100
        }.max()
      }
      return Usage(
        name: name, replicas: pids.count, peakRSS: peak,
        cpuPercent: cpu / (last.at - first.at) * 100, rssGrowthPercent: growth)
    }
  }

  /// One row a sample: seconds, then the largest current RSS of each worker type.
  var timeline: (columns: [String], rows: [[Double]]) {
    let rows = samples.map { sample in
      [sample.at]
        + names.map { name in
          processes.filter { $0.name == name }.compactMap { sample.rss[$0.pid] }.max() ?? 0
        }
    }
    return (["seconds"] + names.map { $0 + "_rss_mib" }, rows)
  }
}
