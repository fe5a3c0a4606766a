import Events
import Foundation
import Infrastructure

struct PublishCommand: Command {
  static let path = ["publish"]
  static let usage =
    "mowdeck publish --mower MOWER_ID --kind KIND [--reason R] [--name MOWER_NAME] "
    + "[--occurred-at RFC3339] [--event-id UUID]"
  static let summary = "publish one alarm on the ingress subject and wait for its decision"
  static let grammar = Grammar(
    options: ["mower", "kind", "reason", "name", "occurred-at", "event-id"])

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let mower = try arguments.required("mower")
    let eventID = try arguments.option("event-id").map { text in
      guard let id = UUID(uuidString: text) else { throw UsageError("--event-id is not a UUID") }
      return id
    }
    let occurredAt = try arguments.option("occurred-at").map { text in
      guard let date = Timestamp.parse(text) else {
        throw UsageError("--occurred-at is not an RFC 3339 instant")
      }
      return date
    }
    let alarm = AlarmMessage(
      eventID: eventID ?? UUID(), mowerID: mower, kind: try arguments.required("kind"),
      occurredAt: occurredAt ?? Date(), mowerName: arguments.option("name"),
      reason: arguments.option("reason"))
    let nats = try context.nats()
    let publisher = try await AlarmPublisher(
      nats: nats, subjects: context.subjects, pool: context.pool(),
      streamReplicas: context.configuration.jetStreamReplicas)
    let decided = try await publisher.publishAndWait(
      subject: context.subjects.alarm(mowerID: mower), payload: alarm.encoded,
      timeout: .seconds(30))
    let id = alarm.eventID.uuidString.lowercased()
    say("\(id) \(decided.outcome) (stream seq \(decided.streamSequence))")
  }
}
