import Glibc

/// The standard `process_*` families (as Prometheus's own clients export them), read from
/// `/proc/self` when `/metrics` is scraped, never on a hot path: CPU time, resident and
/// virtual memory, open and allowed file descriptors, and the start time.
struct ProcessMetrics: Sendable {
  /// Seconds since 1970 at which the process started; fixed, so read once.
  let startTimeSeconds: Double?
  private let ticksPerSecond: Double
  private let pageSize: Double

  init() {
    let ticksPerSecond = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
    self.ticksPerSecond = ticksPerSecond
    pageSize = Double(max(1, sysconf(Int32(_SC_PAGESIZE))))
    // `starttime` counts clock ticks since boot; `/proc/stat`'s `btime` is the boot.
    let bootTime = Self.read("/proc/stat").flatMap { text in
      text.split(separator: "\n").first { $0.hasPrefix("btime ") }
        .flatMap { Double($0.dropFirst(6)) }
    }
    let ticks = Self.statFields().flatMap { Self.field(22, of: $0) }
    startTimeSeconds = bootTime.flatMap { boot in ticks.map { boot + $0 / ticksPerSecond } }
  }

  /// The families in the text format; a file that cannot be read leaves its samples out.
  func render() -> String {
    var out = ""
    func family(_ name: String, _ kind: MetricFamily.Kind, _ help: String, _ value: Double?) {
      guard let value else { return }
      out += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n\(name) \(value)\n"
    }
    let stat = Self.statFields()
    let cpuTicks = stat.flatMap { fields in
      Self.field(14, of: fields).flatMap { user in Self.field(15, of: fields).map { user + $0 } }
    }
    family(
      "process_cpu_seconds_total", .counter, "Total user and system CPU time spent in seconds.",
      cpuTicks.map { $0 / ticksPerSecond })
    family(
      "process_resident_memory_bytes", .gauge, "Resident memory size in bytes.",
      stat.flatMap { Self.field(24, of: $0) }.map { $0 * pageSize })
    family(
      "process_virtual_memory_bytes", .gauge, "Virtual memory size in bytes.",
      stat.flatMap { Self.field(23, of: $0) })
    family(
      "process_open_fds", .gauge, "Number of open file descriptors.", Self.openDescriptors())
    family(
      "process_max_fds", .gauge, "Maximum number of open file descriptors.",
      Self.maxDescriptors())
    family(
      "process_start_time_seconds", .gauge,
      "Start time of the process since unix epoch in seconds.", startTimeSeconds)
    return out
  }

  /// The fields of `/proc/self/stat` after the command name, which is in parentheses and
  /// may itself hold spaces and parentheses: element 0 is field 3 (`state`) of proc(5).
  private static func statFields() -> [Substring]? {
    guard let text = read("/proc/self/stat"), let close = text.lastIndex(of: ")") else {
      return nil
    }
    return text[text.index(after: close)...].split(separator: " ")
  }

  /// Field `number` of `/proc/self/stat`, numbered from 1 as in proc(5).
  private static func field(_ number: Int, of fields: [Substring]) -> Double? {
    let index = number - 3
    guard fields.indices.contains(index) else { return nil }
    return Double(fields[index])
  }

  /// Entries of `/proc/self/fd`, less the one open to list them.
  private static func openDescriptors() -> Double? {
    guard let directory = opendir("/proc/self/fd") else { return nil }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
      let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
      if !isDot { count += 1 }
    }
    return Double(max(0, count - 1))
  }

  /// The soft limit of `Max open files` in `/proc/self/limits`.
  private static func maxDescriptors() -> Double? {
    guard let text = read("/proc/self/limits"),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
    else { return nil }
    let words = line.dropFirst("Max open files".count).split(separator: " ")
    guard let soft = words.first else { return nil }
    // "unlimited" has no number; Prometheus's own clients leave the sample out too.
    return Double(soft)
  }

  /// A `/proc` file whole: its size reads as 0, so it is read until the end, not by size.
  private static func read(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
      bytes += chunk[0..<count]
    }
  }
}
