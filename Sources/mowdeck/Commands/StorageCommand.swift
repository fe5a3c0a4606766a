import Events
import Foundation
import Infrastructure

struct StorageCommand: Command {
  static let path = ["storage"]
  static let usage = "mowdeck storage [--json]"
  static let summary =
    "what the tables hold now: photos by state, events by type and age, the alarm history"
  static let grammar = Grammar(flags: ["json"])

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let report = try await StorageReport.read(pool: context.pool())
    if arguments.flag("json") { return sayJSON(report) }
    say("photos (notification_images):")
    var photos = TextTable(["state", "rows", "bytes", "oldest", "newest", "next expiry"])
    for row in report.photos {
      photos.add([
        row.state, String(row.rows), bytes(row.bytes), text(row.oldest), text(row.newest),
        text(row.nextExpiry),
      ])
    }
    say(photos.render())
    say(
      "photo reservations: "
        + report.photoReservations.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        .joined(separator: ", "))
    say("\nevents by type and age:")
    var events = TextTable(["type", "total", "< 1 h", "< 1 day", "< 30 days", "older", "oldest"])
    for row in report.events {
      events.add([
        row.type, String(row.total), String(row.lastHour), String(row.lastDay),
        String(row.last30Days), String(row.older), text(row.oldest),
      ])
    }
    say(events.render())
    say("\nalarm history (pruned with the events, ADR 0018):")
    var history = TextTable(["table", "rows", "oldest", "on disk"])
    for row in report.history {
      history.add([row.table, String(row.rows), text(row.oldest), bytes(row.bytes)])
    }
    say(history.render())
    say(
      "\non disk: events \(bytes(report.onDisk.events)), photos \(bytes(report.onDisk.photos))")
  }

  private static func text(_ date: Date?) -> String { date.map(Timestamp.format) ?? "-" }

  private static func bytes(_ count: Int) -> String {
    count < 1024 * 1024
      ? "\(count / 1024) KiB" : String(format: "%.1f MiB", Double(count) / 1_048_576)
  }
}

/// What `mowdeck storage` reads, and its `--json` (docs/interfaces.md#command-line): sizes in
/// bytes, instants in RFC 3339, `null` for the oldest row of an empty table.
struct StorageReport: Encodable {
  struct Photos: Encodable {
    let state: String
    let rows: Int
    let bytes: Int
    let oldest: Date?
    let newest: Date?
    let nextExpiry: Date?

    enum CodingKeys: String, CodingKey {
      case state, rows, bytes, oldest, newest
      case nextExpiry = "next_expiry"
    }
  }

  struct Events: Encodable {
    let type: String
    let total: Int
    let lastHour: Int
    let lastDay: Int
    let last30Days: Int
    let older: Int
    let oldest: Date?

    enum CodingKeys: String, CodingKey {
      case type, total, older, oldest
      case lastHour = "last_hour"
      case lastDay = "last_day"
      case last30Days = "last_30_days"
    }
  }

  struct History: Encodable {
    let table: String
    let rows: Int
    let oldest: Date?
    let bytes: Int

    enum CodingKeys: String, CodingKey { case table, rows, oldest, bytes }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(table, forKey: .table)
      try container.encode(rows, forKey: .rows)
      // `Optional`'s own encoding: `null` for an empty table, not left out.
      try container.encode(oldest, forKey: .oldest)
      try container.encode(bytes, forKey: .bytes)
    }
  }

  struct OnDisk: Encodable {
    let events: Int
    let photos: Int
  }

  let photos: [Photos]
  /// Reservations by state: `pending`, `captured`, `failed`.
  let photoReservations: [String: Int]
  let events: [Events]
  let history: [History]
  let onDisk: OnDisk

  enum CodingKeys: String, CodingKey {
    case photos, events, history
    case photoReservations = "photo_reservations"
    case onDisk = "on_disk"
  }

  static func read(pool: DatabasePool) async throws -> StorageReport {
    let photos = try await pool.query(
      """
      SELECT state, count(*) AS n, coalesce(sum(byte_size), 0) AS bytes,
             min(created_at) AS oldest, max(created_at) AS newest, min(expires_at) AS expiry
      FROM notification_images GROUP BY state ORDER BY state
      """
    ).map { row in
      Photos(
        state: try row.string("state"), rows: try row.int("n"), bytes: try row.int("bytes"),
        oldest: try row.optionalDate("oldest"), newest: try row.optionalDate("newest"),
        nextExpiry: try row.optionalDate("expiry"))
    }
    var reservations: [String: Int] = [:]
    for row in try await pool.query(
      "SELECT state, count(*) AS n FROM photo_reservations GROUP BY state")
    {
      reservations[try row.string("state")] = try row.int("n")
    }
    let events = try await pool.query(
      """
      SELECT type, count(*) AS n,
        count(*) FILTER (WHERE recorded_at > now() - interval '1 hour') AS h,
        count(*) FILTER (WHERE recorded_at > now() - interval '1 day') AS d,
        count(*) FILTER (WHERE recorded_at > now() - interval '30 days') AS m,
        count(*) FILTER (WHERE recorded_at <= now() - interval '30 days') AS o,
        min(recorded_at) AS oldest
      FROM events GROUP BY type ORDER BY type
      """
    ).map { row in
      Events(
        type: try row.string("type"), total: try row.int("n"), lastHour: try row.int("h"),
        lastDay: try row.int("d"), last30Days: try row.int("m"), older: try row.int("o"),
        oldest: try row.optionalDate("oldest"))
    }
    let history = try await pool.query(
      """
      SELECT 'alarms' AS t, count(*) AS n, min(received_at) AS oldest,
             pg_total_relation_size('alarms') AS size FROM alarms
      UNION ALL SELECT 'notifications', count(*), min(created_at),
             pg_total_relation_size('notifications') FROM notifications
      UNION ALL SELECT 'deliveries', count(*), min(created_at),
             pg_total_relation_size('deliveries') FROM deliveries
      UNION ALL SELECT 'photo_reservations', count(*), min(created_at),
             pg_total_relation_size('photo_reservations') FROM photo_reservations
      UNION ALL SELECT 'ingress_messages', count(*), min(handled_at),
             pg_total_relation_size('ingress_messages') FROM ingress_messages
      """
    ).map { row in
      History(
        table: try row.string("t"), rows: try row.int("n"),
        oldest: try row.optionalDate("oldest"), bytes: try row.int("size"))
    }
    let size = try await pool.query(
      """
      SELECT pg_total_relation_size('events') AS events, pg_total_relation_size('notification_images') AS images
      """)[0]
    return StorageReport(
      photos: photos, photoReservations: reservations, events: events, history: history,
      onDisk: OnDisk(events: try size.int("events"), photos: try size.int("images")))
  }
}
