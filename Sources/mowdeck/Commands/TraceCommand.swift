import Events
import Foundation

struct TraceCommand: Command {
  static let path = ["trace"]
  static let usage = "mowdeck trace ALARM_ID [--json]"
  static let summary = "print an alarm's whole story from the event log, with times since the alarm"
  static let flagNames: Set<String> = ["json"]

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let text = try arguments.positional(0, "ALARM_ID")
    guard let id = UUID(uuidString: text) else { throw UsageError("ALARM_ID must be a UUID") }
    let story = try await EventLog().story(of: id, pool: context.pool())
    guard let first = story.first else {
      say("no events for alarm \(text.lowercased())")
      exit(1)
    }
    if arguments.flag("json") {
      for event in story {
        say(
          JSON.encode([
            "position": Int(event.position), "recorded_at": Timestamp.format(event.recordedAt),
            "type": event.type, "data": event.data,
          ]))
      }
      return
    }
    say("alarm \(text.lowercased()), first event at \(Timestamp.format(first.recordedAt))")
    for event in story {
      say(TraceLine.render(event, since: first.recordedAt))
    }
  }
}

/// One readable line of a trace: `+12.3 ms  delivery.sent  key=value ...`.
enum TraceLine {
  static func render(_ event: RecordedEvent, since start: Date) -> String {
    let elapsed = event.recordedAt.timeIntervalSince(start)
    let time =
      elapsed < 1
      ? String(format: "+%.1f ms", elapsed * 1000) : String(format: "+%.2f s", elapsed)
    let details = event.data.sorted { $0.key < $1.key }.map { key, value in
      "\(key)=\((value as? String) ?? JSON.encodeValue(value))"
    }.joined(separator: " ")
    return time.padding(toLength: 12, withPad: " ", startingAt: 0)
      + event.type.padding(toLength: 26, withPad: " ", startingAt: 0) + details
  }
}
