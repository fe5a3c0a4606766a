import Foundation
import Infrastructure
import Testing

/// What a process's registry shows beyond what it counts: every family described from the
/// start (`# HELP`, `# TYPE`, even with no sample yet), its build, and the `process_*`
/// families read from `/proc/self`.
@Suite struct MetricsDescriptionTests {
  static let families = [
    MetricFamily("mowdeck_test_answers_total", .counter, "Answers, by action."),
    MetricFamily("mowdeck_test_level", .gauge, "A level."),
    MetricFamily("mowdeck_test_seconds", .histogram, "A latency."),
  ]

  @Test func describedFamiliesShowBeforeTheirFirstSample() throws {
    let metrics = Metrics(families: Self.families)
    let text = metrics.render()
    let (samples, types) = try MetricsTests.parse(text)
    #expect(samples.isEmpty)
    #expect(
      types == [
        "mowdeck_test_answers_total": "counter", "mowdeck_test_level": "gauge",
        "mowdeck_test_seconds": "histogram",
      ])
    for family in Self.families {
      #expect(text.contains("# HELP \(family.name) \(family.help)\n"))
    }
  }

  /// A family described and counted shows once, its samples together, whatever order the
  /// samples were taken in; families come in name order.
  @Test func aDescribedFamilyWithSamplesShowsOnceWithThem() throws {
    let metrics = Metrics(families: Self.families)
    metrics.increment("mowdeck_test_answers_total", labels: ["action": "sent"])
    metrics.observe("mowdeck_test_seconds", 0.3)
    metrics.set("mowdeck_other_level", 2)
    metrics.increment("mowdeck_test_answers_total", labels: ["action": "failed"])
    let text = metrics.render()
    let (samples, types) = try MetricsTests.parse(text)
    #expect(types.count == 4)
    #expect(
      samples.filter { $0.name == "mowdeck_test_answers_total" }.map(\.labels)
        == [["action": "failed"], ["action": "sent"]])
    let typeLines = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
    #expect(
      typeLines.map { $0.split(separator: " ")[2] }
        == typeLines.map { $0.split(separator: " ")[2] }.sorted())
  }

  @Test func aProcessRegistryNamesItsBuildAndDescribesEveryFamily() throws {
    let metrics = Metrics(component: "TestWorker", families: Self.families)
    metrics.describe("mowdeck_test_level", type: "gauge", help: "A level, described again.")
    metrics.set("mowdeck_test_level", 1)
    let text = metrics.render()
    let (samples, types) = try MetricsTests.parse(text)
    #expect(
      samples.contains(
        MetricsTests.Sample(
          name: "mowdeck_build_info",
          labels: ["component": "TestWorker", "version": BuildVersion.version], value: 1)))
    #expect(types["mowdeck_build_info"] == "gauge")
    let helped = Set(
      text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.map {
        String($0.split(separator: " ")[2])
      })
    #expect(
      helped == Set(types.keys), "families without HELP: \(Set(types.keys).subtracting(helped))")
    #expect(text.contains("# HELP mowdeck_test_level A level, described again.\n"))
  }

  /// The `process_*` figures against what this process can tell of itself by other means.
  @Test func processFiguresAreThisProcesss() throws {
    let metrics = Metrics(component: "TestWorker")
    let opened = (0..<40).map { _ in open("/dev/null", O_RDONLY) }
    defer { for descriptor in opened { close(descriptor) } }
    let (samples, types) = try MetricsTests.parse(metrics.render())
    func value(_ name: String) throws -> Double {
      try #require(samples.first { $0.name == name }?.value, "no \(name)")
    }
    #expect(types["process_cpu_seconds_total"] == "counter")
    for gauge in [
      "process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds",
      "process_max_fds", "process_start_time_seconds",
    ] {
      #expect(types[gauge] == "gauge", "\(gauge)")
    }
    #expect(try value("process_cpu_seconds_total") > 0)
    let resident = try value("process_resident_memory_bytes")
    let virtual = try value("process_virtual_memory_bytes")
    #expect(resident > 1_000_000 && resident <= virtual)
    #expect(try value("process_open_fds") >= Double(opened.count + 3))
    var limit = rlimit()
    #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
    #expect(try value("process_max_fds") == Double(limit.rlim_cur))
    let started = try value("process_start_time_seconds")
    let age = Date().timeIntervalSince1970 - started
    #expect(age >= 0 && age < ProcessInfo.processInfo.systemUptime, "started \(age) s ago")
    // The CPU time of the whole process, not of this thread: it grows as any thread works.
    let before = try value("process_cpu_seconds_total")
    var spin = 0.0
    let until = ContinuousClock.now + .milliseconds(300)
    while ContinuousClock.now < until { spin += 1 }
    let after = try #require(
      try MetricsTests.parse(metrics.render()).samples.first {
        $0.name == "process_cpu_seconds_total"
      }?.value)
    #expect(after >= before + 0.1, "spun \(spin) times: \(before) s, then \(after) s")
  }
}
