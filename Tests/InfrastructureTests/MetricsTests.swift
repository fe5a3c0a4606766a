import Infrastructure
import Testing

@Suite struct MetricsTests {
  /// One sample line of the Prometheus text format.
  struct Sample: Equatable {
    let name: String
    let labels: [String: String]
    let value: Double
  }

  /// A strict reader of the text exposition format: every line is a `# HELP`, a `# TYPE`
  /// or a sample; `# TYPE` comes once per family, before its samples, which are contiguous.
  static func parse(_ text: String) throws -> (samples: [Sample], types: [String: String]) {
    #expect(text.hasSuffix("\n"))
    var samples: [Sample] = []
    var types: [String: String] = [:]
    var finishedFamilies = Set<String>()
    var currentFamily: String?
    func family(of name: String) -> String {
      for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
        let base = String(name.dropLast(suffix.count))
        if types[base] == "histogram" { return base }
      }
      return name
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      if line.hasPrefix("# HELP ") { continue }
      if line.hasPrefix("# TYPE ") {
        let parts = line.split(separator: " ")
        try #require(parts.count == 4, "\(line)")
        let name = String(parts[2])
        #expect(types[name] == nil, "TYPE of \(name) twice")
        #expect(["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]))
        types[name] = String(parts[3])
        continue
      }
      try #require(!line.hasPrefix("#"), "unknown comment \(line)")
      let sample = try parseSample(String(line))
      let name = family(of: sample.name)
      #expect(types[name] != nil, "sample before TYPE: \(line)")
      if currentFamily != name {
        if let currentFamily { finishedFamilies.insert(currentFamily) }
        #expect(!finishedFamilies.contains(name), "family \(name) is not contiguous")
        currentFamily = name
      }
      samples.append(sample)
    }
    return (samples, types)
  }

  static func parseSample(_ line: String) throws -> Sample {
    var characters = Substring(line)
    let name = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
    try #require(!name.isEmpty && !name.first!.isNumber, "bad name in \(line)")
    characters = characters.dropFirst(name.count)
    var labels: [String: String] = [:]
    if characters.first == "{" {
      characters = characters.dropFirst()
      while characters.first != "}" {
        let key = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        try #require(!key.isEmpty, "bad label name in \(line)")
        characters = characters.dropFirst(key.count)
        try #require(characters.hasPrefix("=\""), "bad label in \(line)")
        characters = characters.dropFirst(2)
        var value = ""
        while true {
          let character = try #require(characters.first, "unterminated label in \(line)")
          characters = characters.dropFirst()
          if character == "\"" { break }
          if character == "\\" {
            let escaped = try #require(characters.first, "bad escape in \(line)")
            characters = characters.dropFirst()
            switch escaped {
            case "\\": value.append("\\")
            case "\"": value.append("\"")
            case "n": value.append("\n")
            default: Issue.record("bad escape \\\(escaped) in \(line)")
            }
          } else {
            try #require(character != "\n")
            value.append(character)
          }
        }
        #expect(labels[String(key)] == nil, "label \(key) twice in \(line)")
        labels[String(key)] = value
        if characters.first == "," { characters = characters.dropFirst() }
      }
      characters = characters.dropFirst()
    }
    try #require(characters.first == " ", "no space before the value in \(line)")
    let text = characters.dropFirst()
    let value: Double? =
      switch text {
      case "+Inf": .infinity
      case "-Inf": -.infinity
      case "NaN": .nan
      default: Double(text)
      }
    return Sample(
      name: String(name), labels: labels, value: try #require(value, "bad value in \(line)"))
  }

  @Test func counterWithLabelsRendersAsValidText() throws {
    let metrics = Metrics()
    metrics.describe("mowdeck_alarms_total", type: "counter", help: "Alarms handled.")
    let theft = ["class": "theft", "kind": "mower_lifted"]
    metrics.increment("mowdeck_alarms_total", labels: theft)
    metrics.increment("mowdeck_alarms_total", by: 2, labels: theft)
    metrics.increment("mowdeck_alarms_total", labels: ["class": "routine", "kind": "rain_pause"])
    metrics.increment("mowdeck_other_total")
    #expect(metrics.counter("mowdeck_alarms_total", labels: theft) == 3)
    #expect(metrics.counter("mowdeck_alarms_total", labels: ["class": "theft"]) == 0)

    let text = metrics.render()
    #expect(text.contains("# HELP mowdeck_alarms_total Alarms handled.\n"))
    let (samples, types) = try Self.parse(text)
    #expect(types == ["mowdeck_alarms_total": "counter", "mowdeck_other_total": "counter"])
    #expect(samples.contains(Sample(name: "mowdeck_alarms_total", labels: theft, value: 3)))
    #expect(
      samples.contains(
        Sample(
          name: "mowdeck_alarms_total", labels: ["class": "routine", "kind": "rain_pause"],
          value: 1)))
    #expect(samples.contains(Sample(name: "mowdeck_other_total", labels: [:], value: 1)))
    #expect(samples.count == 3)
  }

  @Test func labelValuesAreEscaped() throws {
    let metrics = Metrics()
    let awkward = "say \"hi\"\\\nbye"
    metrics.increment("odd_total", labels: ["reason": awkward])
    let (samples, _) = try Self.parse(metrics.render())
    #expect(samples == [Sample(name: "odd_total", labels: ["reason": awkward], value: 1)])
  }

  /// "\r\n" is one Swift Character: escaping by Characters would leave its newline raw
  /// and cut the sample's line in two.
  @Test func aCarriageReturnNewlineInALabelStaysOnItsLine() {
    let metrics = Metrics()
    metrics.increment("crlf_total", labels: ["reason": "a\r\nb"])
    let lines = metrics.render().unicodeScalars.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.hasPrefix("crlf_total{") && $0.hasSuffix("\"} 1.0") }, "\(lines)")
  }

  @Test func histogramBucketsAreCumulativeAndInfEqualsCount() throws {
    let metrics = Metrics()
    metrics.describe("mowdeck_latency_seconds", type: "histogram", help: "Latency.")
    let values = [0.00005, 0.0003, 0.003, 0.003, 0.3, 1, 100]
    for value in values {
      metrics.observe("mowdeck_latency_seconds", value, labels: ["stage": "a"])
    }
    metrics.observe("mowdeck_latency_seconds", 0.2, labels: ["stage": "b"])

    let (samples, types) = try Self.parse(metrics.render())
    #expect(types == ["mowdeck_latency_seconds": "histogram"])
    let stageA = samples.filter { $0.labels["stage"] == "a" }
    let buckets = stageA.filter { $0.name == "mowdeck_latency_seconds_bucket" }
    #expect(buckets.count == Metrics.latencyBuckets.count + 1)
    let bounds = try buckets.map { sample -> Double in
      let le = try #require(sample.labels["le"])
      return le == "+Inf" ? .infinity : try #require(Double(le))
    }
    #expect(bounds == Metrics.latencyBuckets + [.infinity])
    let counts = buckets.map(\.value)
    #expect(counts == counts.sorted(), "buckets must be cumulative")
    for (bound, count) in zip(bounds, counts) {
      #expect(count == Double(values.filter { $0 <= bound }.count), "le=\(bound)")
    }
    let count = try #require(stageA.first { $0.name == "mowdeck_latency_seconds_count" })
    let sum = try #require(stageA.first { $0.name == "mowdeck_latency_seconds_sum" })
    #expect(counts.last == count.value)
    #expect(count.value == Double(values.count))
    #expect(abs(sum.value - values.reduce(0, +)) < 1e-9)
    let stageB = samples.filter { $0.labels["stage"] == "b" }
    #expect(stageB.first { $0.name == "mowdeck_latency_seconds_count" }?.value == 1)
  }

  @Test func gaugesHoldTheLastValue() throws {
    let metrics = Metrics()
    metrics.set("mowdeck_pending", 5)
    metrics.set("mowdeck_pending", 2)
    let (samples, types) = try Self.parse(metrics.render())
    #expect(types == ["mowdeck_pending": "gauge"])
    #expect(samples == [Sample(name: "mowdeck_pending", labels: [:], value: 2)])
  }

  @Test func concurrentGaugeMovesNetOut() async throws {
    let metrics = Metrics()
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<50 {
        group.addTask {
          for _ in 0..<100 {
            metrics.add("mowdeck_held_bytes", Double(task))
            metrics.add("mowdeck_held_bytes", -Double(task))
          }
          metrics.add("mowdeck_held_bytes", 1)
        }
      }
    }
    let (samples, types) = try Self.parse(metrics.render())
    #expect(types == ["mowdeck_held_bytes": "gauge"])
    #expect(samples == [Sample(name: "mowdeck_held_bytes", labels: [:], value: 50)])
  }

  @Test func concurrentIncrementsAreAllCounted() async {
    let metrics = Metrics()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<50 {
        group.addTask {
          for _ in 0..<100 { metrics.increment("hits_total", labels: ["a": "b"]) }
        }
      }
    }
    #expect(metrics.counter("hits_total", labels: ["a": "b"]) == 5_000)
  }

  @Test func emptyRegistryRendersNothing() {
    #expect(Metrics().render().isEmpty)
  }
}
