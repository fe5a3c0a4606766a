import Foundation

/// Latency samples in seconds and the figures a benchmark table prints.
struct Samples {
  private(set) var values: [Double] = []

  mutating func add(_ value: Double) { values.append(value) }
  mutating func add(_ duration: Duration) { values.append(duration.seconds) }

  var count: Int { values.count }

  func percentile(_ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
    return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
  }

  var median: Double { percentile(50) }
  var p99: Double { percentile(99) }
  var maximum: Double { values.max() ?? .nan }
}

func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }

/// Peak resident set size of a process, from /proc, in MiB.
func peakRSSMiB(pid: Int32) -> Double? { statusMiB(pid: pid, field: "VmHWM:") }

/// Resident set size of a process now, from /proc, in MiB.
func currentRSSMiB(pid: Int32) -> Double? { statusMiB(pid: pid, field: "VmRSS:") }

private func statusMiB(pid: Int32, field: String) -> Double? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
    return nil
  }
  for line in status.split(separator: "\n") where line.hasPrefix(field) {
    let digits = line.split(separator: " ").compactMap { Double($0) }
    return digits.first.map { $0 / 1024 }
  }
  return nil
}

/// CPU time (user + system) a process has used so far, in seconds, from /proc.
func cpuSeconds(pid: Int32) -> Double? {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return nil }
  // Fields after the command name: state is field 3, utime 14 and stime 15.
  let fields = stat[stat.index(after: close)...].split(separator: " ")
  guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
    return nil
  }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
