import Events
import Foundation
import Infrastructure

struct TraceCommand: Command {
  static let path = ["trace"]
  static let usage = "mowdeck trace ALARM_ID [--json | --summary]"
  static let summary = "print an alarm's whole story from the event log, with times since the alarm"
  static let grammar = Grammar(flags: ["json", "summary"], positional: ["ALARM_ID"])

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
        say(String(decoding: WireCoding.encode(TraceEntry(event)), as: UTF8.self))
      }
      return
    }
    say("alarm \(text.lowercased()), first event at \(Timestamp.format(first.recordedAt))")
    if arguments.flag("summary") { say("  " + TraceLine.summary(story)) }
    for event in story {
      say(TraceLine.render(event, since: first.recordedAt))
    }
  }
}

extension TraceLine {
  /// "pushed at +3.1 ms, photo captured at +1.84 s, fetched by the phone at +2.10 s".
  static func summary(_ story: [RecordedEvent]) -> String {
    guard let start = story.first?.recordedAt else { return "no events" }
    func at(_ type: String) -> String? {
      story.first { $0.type == type }.map { event in
        let elapsed = event.recordedAt.timeIntervalSince(start)
        return elapsed < 1
          ? String(format: "+%.1f ms", elapsed * 1000) : String(format: "+%.2f s", elapsed)
      }
    }
    if story.contains(where: { $0.type == "alarm.rejected" }) { return "rejected" }
    if story.contains(where: { $0.type == "alarm.suppressed" }) { return "suppressed (cooldown)" }
    var parts: [String] = []
    parts.append(at("delivery.sent").map { "pushed at \($0)" } ?? "not pushed yet")
    if let captured = at("photo.captured") {
      parts.append("photo captured at \(captured)")
    } else if let failed = story.first(where: { $0.type == "photo.failed" }) {
      let reason = (try? failed.decode(PhotoFailed.self))?.reason ?? "?"
      parts.append("photo failed (\(reason)) at \(at("photo.failed")!)")
    } else if let skipped = story.first(where: { $0.type == "photo.skipped" }) {
      parts.append("no photo (\((try? skipped.decode(PhotoSkipped.self))?.reason ?? "?"))")
    } else if story.contains(where: { $0.type == "image.reserved" }) {
      parts.append("photo pending")
    }
    if let served = at("image.served") { parts.append("fetched by the phone at \(served)") }
    let queued = story.filter { $0.type == "delivery.queued" }
      .compactMap { try? $0.decode(DeliveryQueued.self) }
    if !queued.isEmpty {
      parts.append("devices: " + platformCounts(queued.filter { $0.followup != true }))
    }
    let followUps = queued.filter { $0.followup == true }
    if !followUps.isEmpty { parts.append("photo follow-ups: " + platformCounts(followUps)) }
    return parts.joined(separator: ", ")
  }

  /// "1 apns, 2 webpush", in the platforms' order.
  private static func platformCounts(_ queued: [DeliveryQueued]) -> String {
    DevicePlatform.allCases.compactMap { platform in
      // Events from before devices had platforms are all APNs.
      let count = queued.filter { ($0.platform ?? .apns) == platform }.count
      return count == 0 ? nil : "\(count) \(platform.rawValue)"
    }.joined(separator: " and ")
  }
}

/// One readable line of a trace: `+12.3 ms  delivery.sent  key=value ...`.
enum TraceLine {
  static func render(_ event: RecordedEvent, since start: Date) -> String {
    let elapsed = event.recordedAt.timeIntervalSince(start)
    let time =
      elapsed < 1
      ? String(format: "+%.1f ms", elapsed * 1000) : String(format: "+%.2f s", elapsed)
    let details = JSONValue.fields(of: event.dataJSON).sorted { $0.key < $1.key }.map {
      key, value in "\(key)=\(value.text)"
    }.joined(separator: " ")
    return time.padding(toLength: 12, withPad: " ", startingAt: 0)
      + event.type.padding(toLength: 26, withPad: " ", startingAt: 0) + details
  }
}

/// One line of `mowdeck trace --json`: the event with its `data` as it was written.
struct TraceEntry: Encodable {
  let position: Int64
  let recordedAt: Date
  let type: String
  let data: [String: JSONValue]

  init(_ event: RecordedEvent) {
    position = event.position
    recordedAt = event.recordedAt
    type = event.type
    data = JSONValue.fields(of: event.dataJSON)
  }

  enum CodingKeys: String, CodingKey {
    case position
    case recordedAt = "recorded_at"
    case type, data
  }
}
