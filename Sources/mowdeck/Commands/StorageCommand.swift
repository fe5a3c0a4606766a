import Events
import Foundation
import Infrastructure

struct StorageCommand: Command {
  static let path = ["storage"]
  static let usage = "mowdeck storage"
  static let summary =
    "what the tables hold now: photos by state, events by type and age, the alarm history"

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let pool = context.pool()
    say("photos (notification_images):")
    var photos = TextTable(["state", "rows", "bytes", "oldest", "newest", "next expiry"])
    for row in try await pool.query(
      """
      SELECT state, count(*) AS n, coalesce(sum(byte_size), 0) AS bytes,
             min(created_at) AS oldest, max(created_at) AS newest, min(expires_at) AS expiry
      FROM notification_images GROUP BY state ORDER BY state
      """)
    {
      photos.add([
        try row.string("state"), try row.string("n"), bytes(try row.int("bytes")),
        try row.optionalString("oldest") ?? "-", try row.optionalString("newest") ?? "-",
        try row.optionalString("expiry") ?? "-",
      ])
    }
    say(photos.render())
    let reservations = try await pool.query(
      "SELECT state, count(*) AS n FROM photo_reservations GROUP BY state ORDER BY state")
    say(
      "photo reservations: "
        + (try reservations.map { "\(try $0.string("state")) \(try $0.string("n"))" }.joined(
          separator: ", ")))
    say("\nevents by type and age:")
    var events = TextTable(["type", "total", "< 1 h", "< 1 day", "< 30 days", "older", "oldest"])
    for row in try await pool.query(
      """
      SELECT type, count(*) AS n,
        count(*) FILTER (WHERE recorded_at > now() - interval '1 hour') AS h,
        count(*) FILTER (WHERE recorded_at > now() - interval '1 day') AS d,
        count(*) FILTER (WHERE recorded_at > now() - interval '30 days') AS m,
        count(*) FILTER (WHERE recorded_at <= now() - interval '30 days') AS o,
        min(recorded_at) AS oldest
      FROM events GROUP BY type ORDER BY type
      """)
    {
      events.add([
        try row.string("type"), try row.string("n"), try row.string("h"), try row.string("d"),
        try row.string("m"), try row.string("o"), try row.string("oldest"),
      ])
    }
    say(events.render())
    say("\nalarm history (pruned with the events, ADR 0018):")
    var history = TextTable(["table", "rows", "oldest", "on disk"])
    for row in try await pool.query(
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
      """)
    {
      history.add([
        try row.string("t"), try row.string("n"), try row.optionalString("oldest") ?? "-",
        bytes(try row.int("size")),
      ])
    }
    say(history.render())
    let size = try await pool.query(
      """
      SELECT pg_total_relation_size('events') AS events, pg_total_relation_size('notification_images') AS images
      """)[0]
    say(
      "\non disk: events \(bytes(try size.int("events"))), photos \(bytes(try size.int("images")))")
  }

  private static func bytes(_ count: Int) -> String {
    count < 1024 * 1024
      ? "\(count / 1024) KiB" : String(format: "%.1f MiB", Double(count) / 1_048_576)
  }
}
