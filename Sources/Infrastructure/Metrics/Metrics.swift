import Synchronization

/// In-process Prometheus metrics: counters, gauges and histograms, labelled, rendered in the text
/// exposition format. One registry a process, passed to whoever counts.
///
/// Every family it renders has `# HELP` and `# TYPE`: a worker describes its families when it
/// creates the registry (`families`, or `describe` later), and a described family is shown
/// even before its first sample. A process's registry (`component` given) also renders
/// `mowdeck_build_info` and the `process_*` families read from `/proc/self`.
public final class Metrics: Sendable {
  private struct Key: Hashable {
    let name: String
    let labels: [String: String]
  }

  private struct Histogram {
    var buckets: [Double]
    var counts: [Int]
    var sum = 0.0
    var count = 0
  }

  private struct State {
    var help: [String: (type: String, text: String)] = [:]
    var counters: [Key: Double] = [:]
    var gauges: [Key: Double] = [:]
    var histograms: [Key: Histogram] = [:]
  }

  /// Latency buckets in seconds, from a tenth of a millisecond to half a minute.
  public static let latencyBuckets: [Double] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
    10, 30,
  ]

  /// Buckets for counts of things taken together (alarms in a batch, rows in a claim).
  public static let sizeBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]

  /// `mowdeck_build_info`: which build and which executable a scrape reached.
  public static let buildInfo = MetricFamily(
    "mowdeck_build_info", .gauge,
    "The build this process runs (version) and which it is "
      + "(component); always 1.")

  private let state = Mutex(State())
  /// The executable (`FanoutWorker`), for `mowdeck_build_info`; nil for a registry that is
  /// not a process's own (a test's, a test double's), which renders only what it counts.
  public let component: String?
  private let process: ProcessMetrics?

  /// - Parameters:
  ///   - component: the executable whose registry this is; it adds `mowdeck_build_info` and
  ///     the `process_*` families.
  ///   - families: the families the process exports, described from the start.
  public init(component: String? = nil, families: [MetricFamily] = []) {
    self.component = component
    process = component == nil ? nil : ProcessMetrics()
    describe(families)
  }

  public func describe(_ name: String, type: String, help: String) {
    state.withLock { $0.help[name] = (type, help) }
  }

  public func describe(_ families: [MetricFamily]) {
    guard !families.isEmpty else { return }
    state.withLock { state in
      for family in families { state.help[family.name] = (family.kind.rawValue, family.help) }
    }
  }

  public func increment(_ name: String, by value: Double = 1, labels: [String: String] = [:]) {
    state.withLock { $0.counters[Key(name: name, labels: labels), default: 0] += value }
  }

  public func set(_ name: String, _ value: Double, labels: [String: String] = [:]) {
    state.withLock { $0.gauges[Key(name: name, labels: labels)] = value }
  }

  /// Moves a gauge by `delta` (negative to lower it), under the registry's lock: for a level
  /// that many tasks raise and lower, with no copy of it kept anywhere else.
  public func add(_ name: String, _ delta: Double, labels: [String: String] = [:]) {
    state.withLock { $0.gauges[Key(name: name, labels: labels), default: 0] += delta }
  }

  /// Counts `value` into a histogram; `buckets` are fixed by the first observation.
  public func observe(
    _ name: String, _ value: Double, labels: [String: String] = [:],
    buckets: [Double] = Metrics.latencyBuckets
  ) {
    state.withLock { state in
      let key = Key(name: name, labels: labels)
      var histogram =
        state.histograms[key]
        ?? Histogram(buckets: buckets, counts: Array(repeating: 0, count: buckets.count))
      for (index, bound) in histogram.buckets.enumerated() where value <= bound {
        histogram.counts[index] += 1
      }
      histogram.sum += value
      histogram.count += 1
      state.histograms[key] = histogram
    }
  }

  public func counter(_ name: String, labels: [String: String] = [:]) -> Double {
    state.withLock { $0.counters[Key(name: name, labels: labels)] ?? 0 }
  }

  /// The Prometheus text format: each family once, in name order, its samples together,
  /// then `mowdeck_build_info` and the `process_*` families. Formatted from a copy taken under
  /// the lock, not under it: the lock is on hot paths (a PhotoWorker admits each camera reply
  /// under it, on nats.c's delivery thread, ADR 0023), and a scrape must not hold them up.
  public func render() -> String {
    let snapshot = state.withLock { $0 }
    var out = Self.format(snapshot)
    if let component {
      let family = Self.buildInfo
      out +=
        "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.kind.rawValue)\n"
        + "\(family.name)\(Self.labelText(["component": component, "version": BuildVersion.version])) 1\n"
    }
    if let process { out += process.render() }
    return out
  }

  private static func format(_ state: State) -> String {
    // Per family: the type to show when it was never described, and its sample lines.
    var families: [String: (type: String, samples: [(labels: String, lines: String)])] = [:]
    for (key, value) in state.counters {
      families[key.name, default: ("counter", [])].samples.append(
        (labelText(key.labels), "\(key.name)\(labelText(key.labels)) \(value)\n"))
    }
    for (key, value) in state.gauges {
      families[key.name, default: ("gauge", [])].samples.append(
        (labelText(key.labels), "\(key.name)\(labelText(key.labels)) \(value)\n"))
    }
    for (key, histogram) in state.histograms {
      var lines = ""
      for (index, bound) in histogram.buckets.enumerated() {
        lines +=
          "\(key.name)_bucket\(labelText(key.labels, extra: ("le", "\(bound)"))) \(histogram.counts[index])\n"
      }
      lines +=
        "\(key.name)_bucket\(labelText(key.labels, extra: ("le", "+Inf"))) \(histogram.count)\n"
      lines += "\(key.name)_sum\(labelText(key.labels)) \(histogram.sum)\n"
      lines += "\(key.name)_count\(labelText(key.labels)) \(histogram.count)\n"
      families[key.name, default: ("histogram", [])].samples.append((labelText(key.labels), lines))
    }
    for (name, help) in state.help where families[name] == nil { families[name] = (help.type, []) }
    var out = ""
    for (name, family) in families.sorted(by: { $0.key < $1.key }) {
      if let help = state.help[name] {
        out += "# HELP \(name) \(help.text)\n# TYPE \(name) \(help.type)\n"
      } else {
        out += "# TYPE \(name) \(family.type)\n"
      }
      for sample in family.samples.sorted(by: { $0.labels < $1.labels }) { out += sample.lines }
    }
    return out
  }

  private static func labelText(_ labels: [String: String], extra: (String, String)? = nil)
    -> String
  {
    var pairs = labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    if let extra { pairs.append(extra) }
    guard !pairs.isEmpty else { return "" }
    let body = pairs.map { key, value in
      // Per Unicode scalar: "\r\n" is one Character, and would keep its newline.
      var escaped = ""
      for scalar in value.unicodeScalars {
        switch scalar {
        case "\\": escaped += "\\\\"
        case "\"": escaped += "\\\""
        case "\n": escaped += "\\n"
        default: escaped.unicodeScalars.append(scalar)
        }
      }
      return "\(key)=\"\(escaped)\""
    }
    return "{" + body.joined(separator: ",") + "}"
  }
}
