import Events
import Foundation
import Infrastructure

struct CheckDecisionsCommand: Command {
  static let path = ["check-decisions"]
  static let usage = "mowdeck check-decisions ALARMS EXPECTED"
  static let summary =
    "compare the decisions in the event log with an expected file; exit 1 on any difference"
  static let grammar = Grammar(positional: ["ALARMS", "EXPECTED"])

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let alarms = try RecordedAlarm.load(path: try arguments.positional(0, "ALARMS"))
    let expectedPath = try arguments.positional(1, "EXPECTED")
    let expected = try ExpectedDecision.load(path: expectedPath)
    guard expected.count == alarms.count else {
      throw UsageError(
        "\(expectedPath) has \(expected.count) lines, the alarms file \(alarms.count)")
    }
    let log = try await LoggedDecisions.load(pool: context.pool())
    let differences = log.compare(alarms: alarms, expected: expected)
    for difference in differences { say(difference) }
    if differences.isEmpty {
      say("all \(alarms.count) decisions match")
    } else {
      say("\(differences.count) differences")
      exit(1)
    }
  }
}

/// The decisions as the event log tells them.
struct LoggedDecisions {
  var received: [String: Int] = [:]
  var suppressed: Set<String> = []
  var notifications: [String: Int] = [:]
  var photo: [String: String] = [:]
  /// Rejections, by the SHA-256 of the rejected payload.
  var rejected: [String: Int] = [:]

  static func load(pool: DatabasePool) async throws -> LoggedDecisions {
    let rows = try await pool.query(
      """
      SELECT type, correlation_id::text AS id, data->>'reason' AS reason,
             data->>'payload_sha256' AS sha
      FROM events
      WHERE type IN ('alarm.received', 'alarm.suppressed', 'alarm.rejected',
                     'notification.created', 'image.reserved', 'photo.skipped')
      """)
    var log = LoggedDecisions()
    for row in rows {
      let id = try row.string("id")
      switch try row.string("type") {
      case "alarm.received": log.received[id, default: 0] += 1
      case "alarm.suppressed": log.suppressed.insert(id)
      case "notification.created": log.notifications[id, default: 0] += 1
      case "image.reserved": log.photo[id] = "reserved"
      case "photo.skipped": log.photo[id] = "skipped:" + (try row.optionalString("reason") ?? "?")
      case "alarm.rejected":
        log.rejected[try row.optionalString("sha") ?? "", default: 0] += 1
      default: break
      }
    }
    return log
  }

  /// One line per difference, naming the line of the files and what differs.
  func compare(alarms: [RecordedAlarm], expected: [ExpectedDecision]) -> [String] {
    var differences: [String] = []
    var remainingRejections = rejected
    var decidedIDs: Set<String> = []
    var expectedReceived = 0
    for (index, (alarm, want)) in zip(alarms, expected).enumerated() {
      let line = "line \(index + 1)"
      let id = want.eventID?.lowercased() ?? ""
      let decision = want.decision
      switch decision {
      case "rejected":
        let sha = Digest.sha256Hex(Array(alarm.payload.utf8))
        if remainingRejections[sha, default: 0] > 0 {
          remainingRejections[sha]! -= 1
        } else {
          differences.append("\(line): expected rejected, found no alarm.rejected for its payload")
        }
      case "duplicate":
        if !decidedIDs.contains(id) {
          differences.append("\(line) \(id): expected duplicate, but no earlier decision")
        }
      case "suppressed", "pushed":
        expectedReceived += 1
        decidedIDs.insert(id)
        let count = received[id] ?? 0
        guard count == 1 else {
          differences.append("\(line) \(id): expected \(decision), alarm.received \(count) times")
          continue
        }
        let got = suppressed.contains(id) ? "suppressed" : "pushed"
        guard got == decision else {
          differences.append("\(line) \(id): expected \(decision), got \(got)")
          continue
        }
        guard decision == "pushed" else { continue }
        let wantNotifications = want.notifications ?? -1
        let gotNotifications = notifications[id] ?? 0
        if wantNotifications != gotNotifications {
          differences.append(
            "\(line) \(id): expected \(wantNotifications) notifications, got \(gotNotifications)")
        }
        let wantPhoto = want.photo ?? "?"
        let gotPhoto = photo[id] ?? "none"
        if wantPhoto != gotPhoto {
          differences.append("\(line) \(id): expected photo \(wantPhoto), got \(gotPhoto)")
        }
      default:
        differences.append("\(line): unknown expected decision \(decision)")
      }
    }
    let extraReceived = received.values.reduce(0, +) - expectedReceived
    if extraReceived > 0 {
      differences.append("the log holds \(extraReceived) alarm.received beyond the expected ones")
    }
    let extraRejections = remainingRejections.values.reduce(0, +)
    if extraRejections > 0 {
      differences.append("the log holds \(extraRejections) alarm.rejected beyond the expected ones")
    }
    return differences
  }
}
