import Events
import Foundation

struct PublishCommand: Command {
  static let path = ["publish"]
  static let usage =
    "mowdeck publish --mower MOWER_ID --kind KIND [--reason R] [--name MOWER_NAME] "
    + "[--occurred-at RFC3339] [--event-id UUID]"
  static let summary = "publish one alarm on the ingress subject and wait for its decision"

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let mower = try arguments.required("mower")
    var payload: [String: Any] = [
      "event_id": (arguments.option("event-id") ?? UUID().uuidString).lowercased(),
      "mower_id": mower, "kind": try arguments.required("kind"),
      "occurred_at": arguments.option("occurred-at") ?? Timestamp.format(Date()),
    ]
    if let reason = arguments.option("reason") { payload["reason"] = reason }
    if let name = arguments.option("name") { payload["mower_name"] = name }
    let nats = try context.nats()
    let publisher = try await AlarmPublisher(
      nats: nats, subjects: context.subjects, pool: context.pool())
    let decided = try await publisher.publishAndWait(
      subject: context.subjects.alarm(mowerID: mower), payload: Array(JSON.encode(payload).utf8),
      timeout: .seconds(30))
    say("\(payload["event_id"]!) \(decided.outcome) (stream seq \(decided.streamSequence))")
  }
}
