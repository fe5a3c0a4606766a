import Events
import Foundation
import Infrastructure

/// `mowdeck alarm list --mower MOWER_ID [--since RFC3339] [--limit N] [--json]`: what a mower
/// sent lately and what became of it, newest first; `mowdeck trace EVENT_ID` tells one whole.
struct AlarmListCommand: Command {
  static let path = ["alarm", "list"]
  static let usage = "mowdeck alarm list --mower MOWER_ID [--since RFC3339] [--limit N] [--json]"
  static let summary = "a mower's recent alarms: decision, photo, notifications, newest first"
  static let grammar = Grammar(options: ["mower", "since", "limit"], flags: ["json"])

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let mower = try arguments.required("mower")
    let since = try arguments.option("since").map { text in
      guard let date = Timestamp.parse(text) else {
        throw UsageError("--since is not an RFC 3339 instant, e.g. 2026-05-04T07:00:00Z")
      }
      return date
    }
    let limit = try arguments.integer("limit", default: 50)
    let alarms = try await MowerAlarm.recent(
      mowerID: mower, since: since, limit: limit, pool: context.pool())
    if arguments.flag("json") { return sayJSON(alarms) }
    guard !alarms.isEmpty else {
      say("no alarms of mower \(mower)" + (since.map { " since \(Timestamp.format($0))" } ?? ""))
      return
    }
    var table = TextTable("received", "event_id", "kind", "decision", "photo", "notifications")
    for alarm in alarms {
      table.add(
        Timestamp.format(alarm.receivedAt), alarm.eventID.uuidString.lowercased(),
        alarm.kind + (alarm.reason.map { " (\($0))" } ?? ""), alarm.decision, alarm.photo ?? "-",
        alarm.notificationIDs.isEmpty
          ? "-" : alarm.notificationIDs.map { $0.uuidString.lowercased() }.joined(separator: ","))
    }
    say(table.render())
  }
}

/// One row of `mowdeck alarm list`, as its `--json` writes it (docs/interfaces.md#command-line).
struct MowerAlarm: Encodable {
  let eventID: UUID
  let mowerID: String
  let mowerName: String?
  let kind: String
  let alarmClass: String
  let reason: String?
  let occurredAt: Date
  let receivedAt: Date
  let decision: String
  let recipients: Int
  /// nil for a suppressed alarm, which took no decision about a photo.
  let photo: String?
  let notificationIDs: [UUID]

  enum CodingKeys: String, CodingKey {
    case eventID = "event_id"
    case mowerID = "mower_id"
    case mowerName = "mower_name"
    case kind
    case alarmClass = "alarm_class"
    case reason
    case occurredAt = "occurred_at"
    case receivedAt = "received_at"
    case decision, recipients, photo
    case notificationIDs = "notification_ids"
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(eventID.uuidString.lowercased(), forKey: .eventID)
    try container.encode(mowerID, forKey: .mowerID)
    // `Optional`'s own encoding: `null` when absent, so every object has every key.
    try container.encode(mowerName, forKey: .mowerName)
    try container.encode(kind, forKey: .kind)
    try container.encode(alarmClass, forKey: .alarmClass)
    try container.encode(reason, forKey: .reason)
    try container.encode(occurredAt, forKey: .occurredAt)
    try container.encode(receivedAt, forKey: .receivedAt)
    try container.encode(decision, forKey: .decision)
    try container.encode(recipients, forKey: .recipients)
    try container.encode(photo, forKey: .photo)
    try container.encode(
      notificationIDs.map { $0.uuidString.lowercased() }, forKey: .notificationIDs)
  }

  /// The mower's alarms received at or after `since`, newest first, at most `limit`.
  static func recent(mowerID: String, since: Date?, limit: Int, pool: DatabasePool) async throws
    -> [MowerAlarm]
  {
    try await pool.query(
      """
      SELECT a.event_id, a.mower_id, a.mower_name, a.kind, a.alarm_class, a.reason,
             a.occurred_at, a.received_at, a.decision, a.recipients, a.photo,
             r.state AS reservation, i.state AS stored, i.failure_reason,
             coalesce(i.expires_at > now(), false) AS fresh,
             (SELECT string_agg(n.notification_id::text, ',' ORDER BY n.user_id)
              FROM notifications n WHERE n.event_id = a.event_id) AS notifications
      FROM alarms a
      LEFT JOIN photo_reservations r ON r.event_id = a.event_id
      LEFT JOIN notification_images i ON i.event_id = a.event_id
      WHERE a.mower_id = \(mowerID)
        AND (\(since)::timestamptz IS NULL OR a.received_at >= \(since)::timestamptz)
      ORDER BY a.received_at DESC, a.event_id DESC
      LIMIT \(limit)
      """
    ).map { row in
      MowerAlarm(
        eventID: try row.uuid("event_id"), mowerID: try row.string("mower_id"),
        mowerName: try row.optionalString("mower_name"), kind: try row.string("kind"),
        alarmClass: try row.string("alarm_class"), reason: try row.optionalString("reason"),
        occurredAt: try row.date("occurred_at"), receivedAt: try row.date("received_at"),
        decision: try row.string("decision"), recipients: try row.int("recipients"),
        photo: photoState(
          decided: try row.optionalString("photo"),
          reservation: try row.optionalString("reservation"),
          stored: try row.optionalString("stored"),
          failureReason: try row.optionalString("failure_reason"), fresh: try row.bool("fresh")),
        notificationIDs: (try row.optionalString("notifications") ?? "").split(separator: ",")
          .compactMap { UUID(uuidString: String($0)) })
    }
  }

  /// How far the photo got: `none` and `skipped:<reason>` as the fan-out decided; a reserved
  /// one by its reservation and stored row: `pending`, `captured`, `expired` (captured, since
  /// expired or pruned) or `failed:<reason>`.
  static func photoState(
    decided: String?, reservation: String?, stored: String?, failureReason: String?, fresh: Bool
  ) -> String? {
    guard decided == "reserved", let reservation else { return decided }
    switch reservation {
    case "captured": return stored == "captured" && fresh ? "captured" : "expired"
    case "failed": return "failed:" + (failureReason ?? "unknown")
    default: return reservation
    }
  }
}
