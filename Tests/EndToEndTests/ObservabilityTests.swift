import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Issue 26's observability, against the real processes: every worker's `/metrics` gives
/// each family `# HELP` and `# TYPE`, its build and its `process_*` figures; every metric
/// that deploy/observability's alert rules and Grafana dashboard name is exported by a
/// running worker from its start (an alert over a missing series would never fire); and an
/// alarm's push is timed from its receipt by the stream on every platform (its wait for the
/// fan-out included), once, not again for the photo's follow-up.
@Suite(.serialized) struct ObservabilityTests {
  @Test func theWorkersExportEveryMetricTheAlertsAndTheDashboardName() async throws {
    let stack = try await EveryPlatformStack.start()
    defer { stack.stop() }
    let prune = try WorkerProcess("PruneWorker", environment: stack.environment)
    defer { prune.stop() }

    var exported: [String: String] = [:]  // family -> type, over every worker
    for worker in stack.workers + [prune] {
      let scrape = try await Scrape.first(of: worker)
      let exposition = try Exposition(scrape.text)
      #expect(
        exposition.undescribed.isEmpty, "\(worker.name): no HELP for \(exposition.undescribed)")
      #expect(
        exposition.untyped.isEmpty, "\(worker.name): samples without TYPE \(exposition.untyped)")
      #expect(
        exposition.value(
          "mowdeck_build_info", ["component": worker.name, "version": BuildVersion.version])
          == 1, "\(worker.name)'s build info")
      try Self.expectPlausibleProcessFigures(exposition, of: worker)
      exported.merge(exposition.types) { first, _ in first }
    }

    // Every family the code names is shown, described, before it has counted anything.
    for name in try Self.metricNamesInSources() {
      #expect(exported[name] != nil, "\(name) is in Sources/ but no worker exports it at start")
    }

    let named = try QueriedMetrics.inAlertsAndDashboard()
    #expect(named.count > 30, "too few metric names found in the rules and dashboard: \(named)")
    for name in named.sorted() {
      #expect(
        QueriedMetrics.family(of: name, in: exported) != nil,
        "\(name) is queried by deploy/observability but no running worker exports it")
    }
  }

  @Test func anAlarmsPushIsTimedFromItsReceiptOnEveryPlatformOnce() async throws {
    let stack = try await EveryPlatformStack.start()
    defer { stack.stop() }

    #expect(
      try await stack.register(
        #"{"token":"\#(String(repeating: "7a", count: 32))","environment":"production"}"#,
        at: "/api/v1/notifications/apns-devices") == 201)
    #expect(
      try await stack.register(#"{"platform":"fcm","token":"\#(try await stack.fcm.makeToken())"}"#)
        == 201)
    let topic = try #require(try await stack.registerAnswer(#"{"platform":"ntfy"}"#).topic)
    let subscription = try await stack.webPush.subscribe(
      applicationServerKey: try stack.vapidPublicKey())
    var body = String(decoding: WireCoding.encode(subscription), as: UTF8.self)
    body = #"{"platform":"webpush","# + body.dropFirst()
    #expect(try await stack.register(body) == 201)

    // The fan-out is stopped while the alarm is published, so the alarm waits in the stream:
    // a push timed from the decision, not from the receipt, would leave that wait out.
    let fanout = try #require(stack.workers.first { $0.name == "FanoutWorker" })
    fanout.signal(SIGSTOP)
    let publishedAt = Date()
    // `mowdeck publish` waits for the decision, which comes once the fan-out runs again.
    async let publishing = runCommand(
      "mowdeck", ["publish", "--mower", "m-1", "--kind", "mower_lifted", "--name", "Robbie"],
      environment: stack.environment, timeout: .seconds(60))
    try await Task.sleep(for: .seconds(Self.streamWait))
    fanout.signal(SIGCONT)
    let published = try await publishing
    #expect(published.status == 0, "\(published.output)")
    // The alarm's message and the photo's follow-up on each channel platform, so that a
    // follow-up counted as an alarm's push would show as a second observation.
    _ = try await stack.webPush.waitForRecordLines(2, timeout: .seconds(60))
    _ = try await stack.fcmSends(2)
    _ = try await stack.ntfyPublishes(2, topic: topic)
    _ = try await stack.apnsPushes(1)
    let elapsed = Date().timeIntervalSince(publishedAt)

    let workers = [
      "apns": "APNsWorker", "webpush": "WebPushWorker", "fcm": "FCMWorker", "ntfy": "NtfyWorker",
    ]
    for (platform, name) in workers.sorted(by: { $0.key < $1.key }) {
      let worker = try #require(stack.workers.first { $0.name == name })
      let labels = ["platform": platform]
      var exposition = try Exposition("")
      // The outcome is written after the push: give the count a moment to appear.
      try await eventually(timeout: .seconds(20), "\(platform)'s alarm-to-push observation") {
        exposition = try Exposition(try await Scrape.first(of: worker).text)
        return exposition.value("mowdeck_alarm_to_push_seconds_count", labels) ?? 0 >= 1
      }
      #expect(exposition.value("mowdeck_alarm_to_push_seconds_count", labels) == 1, "\(platform)")
      let seconds = try #require(exposition.value("mowdeck_alarm_to_push_seconds_sum", labels))
      #expect(
        seconds >= Self.streamWait - 1 && seconds < elapsed,
        "\(platform): \(seconds) s, fan-out stopped \(Self.streamWait) s, all took \(elapsed) s"
      )
      #expect(
        exposition.value(
          "mowdeck_alarm_to_push_seconds_bucket", labels.merging(["le": "+Inf"]) { $1 })
          == 1)
    }
  }

  /// How long the fan-out is stopped. The alarm waits in the stream for all of it but the
  /// publishing command's own start-up (a CI run measured 1.96 s of 2), so at least a second
  /// less is required: a push timed from the decision would show milliseconds.
  private static let streamWait: Double = 3

  /// The metric names written whole in `Sources/` (those built from a stage's or platform's
  /// name are the catalogue's and `StageProgress`'s, which the scrape shows per worker).
  private static func metricNamesInSources() throws -> Set<String> {
    let root = TestServers.repositoryPath("Sources")
    var names = Set<String>()
    for path in try FileManager.default.subpathsOfDirectory(atPath: root)
    where path.hasSuffix(".swift") {
      let code = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
      for match in code.matches(of: #/"(mowdeck_[a-z0-9_]+)"/#) { names.insert(String(match.1)) }
    }
    #expect(names.count > 30, "too few metric names found in Sources/: \(names)")
    return names
  }

  private static func expectPlausibleProcessFigures(
    _ exposition: Exposition, of worker: WorkerProcess
  ) throws {
    let name = worker.name
    let resident = try #require(exposition.value("process_resident_memory_bytes"), "\(name)")
    let virtual = try #require(exposition.value("process_virtual_memory_bytes"), "\(name)")
    #expect(resident > 1_000_000 && virtual >= resident, "\(name): RSS \(resident), VM \(virtual)")
    let open = try #require(exposition.value("process_open_fds"), "\(name)")
    let max = try #require(exposition.value("process_max_fds"), "\(name)")
    #expect(open >= 3 && open < max, "\(name): \(open) of \(max) descriptors")
    let cpu = try #require(exposition.value("process_cpu_seconds_total"), "\(name)")
    #expect(cpu > 0 && cpu < 600, "\(name): \(cpu) s of CPU")
    let started = try #require(exposition.value("process_start_time_seconds"), "\(name)")
    let age = Date().timeIntervalSince1970 - started
    #expect(age >= 0 && age < 600, "\(name) started \(age) s ago by its metrics")
    #expect(exposition.types["process_cpu_seconds_total"] == "counter")
  }
}

/// One worker's `/metrics`: on the first port it logged as listening that answers it (the
/// serving process may listen for its API first).
private struct Scrape {
  let text: String

  /// By curl: the project's `HTTPClient` only posts.
  static func first(of worker: WorkerProcess) async throws -> Scrape {
    var found: String?
    try await eventually(timeout: .seconds(60), "\(worker.name)'s /metrics") {
      for port in listeningPorts(of: worker) {
        let text = try? await runShellOffThePool(
          "curl -fsS --max-time 5 http://127.0.0.1:\(port)/metrics")
        if let text, text.contains("mowdeck_build_info") {
          found = text
          return true
        }
      }
      return false
    }
    return Scrape(text: found ?? "")
  }

  private static func listeningPorts(of worker: WorkerProcess) -> [Int] {
    worker.log.split(separator: "\n").compactMap { line in
      guard let object = JSON.object(from: Array(line.utf8)),
        object["msg"]?.string == "listening"
      else { return nil }
      return object["port"]?.integer
    }
  }
}

/// The Prometheus text format as far as these tests read it: families' types and helps, and
/// samples with their labels.
private struct Exposition {
  struct Sample {
    let name: String
    let labels: [String: String]
    let value: Double
  }

  var types: [String: String] = [:]
  var helps: Set<String> = []
  var samples: [Sample] = []

  init(_ text: String) throws {
    for line in text.split(separator: "\n") {
      let words = line.split(separator: " ", maxSplits: 3)
      if line.hasPrefix("# HELP "), words.count >= 4 {
        helps.insert(String(words[2]))
      } else if line.hasPrefix("# TYPE "), words.count == 4 {
        types[String(words[2])] = String(words[3])
      } else if !line.hasPrefix("#") {
        samples.append(try Self.sample(String(line)))
      }
    }
  }

  private static func sample(_ line: String) throws -> Sample {
    let nameEnd = line.firstIndex { $0 == "{" || $0 == " " } ?? line.endIndex
    var labels: [String: String] = [:]
    var rest = line[nameEnd...]
    if rest.first == "{", let close = rest.lastIndex(of: "}") {
      for match in rest[..<close].matches(of: #/(\w+)="((?:[^"\\]|\\.)*)"/#) {
        labels[String(match.1)] = String(match.2)
      }
      rest = rest[rest.index(after: close)...]
    }
    let value = try #require(Double(rest.trimmingCharacters(in: .whitespaces)), "\(line)")
    return Sample(name: String(line[..<nameEnd]), labels: labels, value: value)
  }

  /// Families with a TYPE and no HELP.
  var undescribed: [String] { types.keys.filter { !helps.contains($0) }.sorted() }

  /// Samples whose family has no TYPE.
  var untyped: [String] {
    Set(samples.map(\.name)).filter { QueriedMetrics.family(of: $0, in: types) == nil }.sorted()
  }

  func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
    samples.first { $0.name == name && $0.labels == labels }?.value
  }
}

/// The metric names deploy/observability queries: in the alert rules' `expr`s and the
/// dashboard's targets.
private enum QueriedMetrics {
  static func inAlertsAndDashboard() throws -> Set<String> {
    let alerts = try String(
      contentsOfFile: TestServers.repositoryPath("deploy/observability/alerts.yml"), encoding: .utf8
    )
    let data = try Data(
      contentsOf: URL(
        fileURLWithPath: TestServers.repositoryPath("deploy/observability/grafana-dashboard.json")))
    let dashboard = try #require(JSON.object(from: data))
    let panels = try #require(dashboard["panels"]?.objects)
    let targets = panels.flatMap { $0["targets"]?.objects ?? [] }
    let expressions = ruleExpressions(alerts) + targets.compactMap { $0["expr"]?.string }
    return Set(expressions.flatMap(metricNames))
  }

  /// The `expr:` values of a rule file: on the key's line, or the block indented under it.
  static func ruleExpressions(_ yaml: String) -> [String] {
    var expressions: [String] = []
    var lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)[...]
    while let line = lines.popFirst() {
      let trimmed = line.drop { $0 == " " }
      guard trimmed.hasPrefix("expr:") || trimmed.hasPrefix("- expr:") else { continue }
      let value = trimmed.split(separator: "expr:", maxSplits: 1).last ?? ""
      guard ["|", ">", "|-", ">-"].contains(value.trimmingCharacters(in: .whitespaces)) else {
        expressions.append(String(value))
        continue
      }
      let indent = line.count - trimmed.count
      var block: [Substring] = []
      while let next = lines.first, next.prefix(while: { $0 == " " }).count > indent || next.isEmpty
      {
        block.append(lines.removeFirst())
      }
      expressions.append(block.joined(separator: "\n"))
    }
    return expressions
  }

  /// The series names of a PromQL expression: what is left once strings, label matchers,
  /// ranges, grouping clauses, functions, keywords and Grafana's variables are taken out;
  /// `up` is Prometheus's own.
  static func metricNames(in expression: String) -> [String] {
    var text = expression
    for pattern in [
      #/"(?:[^"\\]|\\.)*"/#, #/\{[^}]*\}/#, #/\[[^\]]*\]/#, #/\$\w+/#,
      #/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/#,
    ] {
      text = text.replacing(pattern, with: " ")
    }
    let keywords: Set<String> = [
      "or", "and", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left",
      "group_right", "up",
    ]
    return text.matches(of: #/([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?/#).compactMap { match in
      let name = String(match.1)
      return match.2 == nil && !keywords.contains(name) ? name : nil
    }
  }

  /// The family a sample or queried name belongs to in `types`: itself, or a histogram's
  /// whose `_bucket`, `_sum` or `_count` it is.
  static func family(of name: String, in types: [String: String]) -> String? {
    if types[name] != nil { return name }
    for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
      let base = String(name.dropLast(suffix.count))
      if types[base] == "histogram" { return base }
    }
    return nil
  }
}
