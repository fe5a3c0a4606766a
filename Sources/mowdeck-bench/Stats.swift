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
/// - Parameter withChildren: add its children's, the ended ones it has waited for and the
///   living ones: PostgreSQL's work is done by its backends, which come and go.
func cpuSeconds(pid: Int32, withChildren: Bool = false) -> Double? {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return nil }
  // Fields after the command name: state is field 3, utime 14, stime 15, and the waited-for
  // children's cutime 16 and cstime 17.
  let fields = stat[stat.index(after: close)...].split(separator: " ")
  guard fields.count > 14, let user = Double(fields[11]), let system = Double(fields[12]),
    let childUser = Double(fields[13]), let childSystem = Double(fields[14])
  else { return nil }
  let own = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  guard withChildren else { return own }
  let ended = (childUser + childSystem) / Double(sysconf(Int32(_SC_CLK_TCK)))
  let children =
    (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
  let living = children.split(separator: " ").compactMap { Int32($0) }
    .compactMap { cpuSeconds(pid: $0) }.reduce(0, +)
  return own + ended + living
}
