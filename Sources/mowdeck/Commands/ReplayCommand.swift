import Events
import Foundation
import Infrastructure

/// One line of a recorded stream (`fleet40.alarms.jsonl`).
struct RecordedAlarm: Decodable {
  let subject: String
  let payload: String
  /// Its line in the file, from 1.
  var line = 0

  enum CodingKeys: String, CodingKey { case subject, payload }

  static func load(path: String) throws -> [RecordedAlarm] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return try text.split(separator: "\n", omittingEmptySubsequences: true).enumerated().map {
      index, line in
      do {
        var alarm = try WireCoding.decode(RecordedAlarm.self, from: Array(line.utf8))
        alarm.line = index + 1
        return alarm
      } catch {
        throw UsageError("\(path) line \(index + 1) is not {\"subject\", \"payload\"}")
      }
    }
  }
}

struct ReplayCommand: Command {
  static let path = ["replay"]
  static let usage = "mowdeck replay FILE [--timeout SECONDS] [--rate ALARMS_PER_SECOND]"
  static let summary =
    "publish a recorded stream, each mower in order (waiting for each decision), mowers in parallel"
  static let grammar = Grammar(options: ["timeout", "rate"], positional: ["FILE"])

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let file = try arguments.positional(0, "FILE")
    let timeout = try arguments.integer("timeout", default: 60)
    // 0: as fast as the decisions come back. A rate stretches the replay over a known time
    // (the chaos test needs the replay to outlast its schedule).
    let rate = try arguments.integer("rate", default: 0)
    guard rate >= 0 else { throw UsageError("--rate must be 0 or more alarms per second") }
    let alarms = try RecordedAlarm.load(path: file)
    let prefix = context.subjects.prefix
    // Recorded subjects name the contract's subject; a test namespace is put in front.
    var lanes: [String: [RecordedAlarm]] = [:]
    for alarm in alarms { lanes[alarm.subject, default: []].append(alarm) }
    let publisher = try await AlarmPublisher(
      nats: try context.nats(), subjects: context.subjects, pool: context.pool(),
      streamReplicas: context.configuration.jetStreamReplicas)
    let progress = ReplayProgress(total: alarms.count)
    let runID = UUID().uuidString.prefix(8)
    let started = ContinuousClock.now
    let pacer = ReplayPacer(start: started, rate: rate)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (subject, lane) in lanes {
        group.addTask {
          for alarm in lane {
            await pacer.waitForTurn()
            let began = ContinuousClock.now
            // The line's own identity: a publish repeated after NATS comes back is stored once.
            let decided = try await publisher.publishAndWait(
              subject: prefix + subject, payload: Array(alarm.payload.utf8),
              messageID: "replay-\(runID)-\(alarm.line)", timeout: .seconds(timeout))
            await progress.record(decided.outcome, took: ContinuousClock.now - began)
          }
        }
      }
      try await group.waitForAll()
    }
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let counts = await progress.counts
    let slowest = await progress.slowest
    say(
      "replayed \(alarms.count) alarms from \(lanes.count) subjects in "
        + String(format: "%.1f s (%.0f alarms/s): ", seconds, Double(alarms.count) / seconds)
        + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        + String(
          format: "; slowest decision %.2f s",
          Double(slowest.components.seconds) + Double(slowest.components.attoseconds) / 1e18))
  }
}

/// Hands out publish slots at a fixed overall rate, shared by every lane.
actor ReplayPacer {
  let start: ContinuousClock.Instant
  let rate: Int
  private var issued: Int64 = 0

  init(start: ContinuousClock.Instant, rate: Int) {
    self.start = start
    self.rate = rate
  }

  func waitForTurn() async {
    guard rate > 0 else { return }
    let due = start + .microseconds(issued * 1_000_000 / Int64(rate))
    issued += 1
    try? await Task.sleep(until: due, clock: .continuous)
  }
}

/// Counts outcomes and prints progress to standard error every 10%.
actor ReplayProgress {
  let total: Int
  private(set) var counts: [String: Int] = [:]
  /// The longest any alarm took from its publish to its decision: what an outage cost.
  private(set) var slowest: Duration = .zero
  private var done = 0
  private var nextReport: Int

  init(total: Int) {
    self.total = total
    nextReport = max(1, total / 10)
  }

  func record(_ outcome: String, took: Duration) {
    counts[outcome, default: 0] += 1
    slowest = max(slowest, took)
    done += 1
    if done >= nextReport || done == total {
      FileHandle.standardError.write(Data("replay: \(done)/\(total) decided\n".utf8))
      nextReport = done + max(1, total / 10)
    }
  }
}
