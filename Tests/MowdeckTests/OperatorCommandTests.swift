import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// The operator's kit: removing a device, revoking sessions, a mower's recent alarms, and
/// `--json` on the commands that read.
@Suite struct OperatorCommandTests {
  /// `device remove` removes the named user's own device, and refuses another user's with
  /// exit status 1, leaving it in place; `device list --json` shows what is left.
  @Test func deviceRemoveTakesOnlyTheUsersOwnDevice() async throws {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u-a", name: "A")
    try await directory.addUser(id: "u-b", name: "B")
    let own = try await directory.addDevice(
      userID: "u-a", token: String(repeating: "a", count: 64), environment: "sandbox")
    let theirs = try await directory.addDevice(
      userID: "u-b", token: String(repeating: "b", count: 64), environment: "production")
    let (ownText, theirsText) = (own.uuidString.lowercased(), theirs.uuidString.lowercased())

    let listed = try await mowdeck(["device", "list", "--user", "u-a", "--json"], database: db)
    #expect(listed.status == 0, "\(listed.output)")
    let devices = try #require(try jsonOutput(listed.output).objects)
    #expect(devices.count == 1)
    #expect(devices.first?["device_id"]?.string == ownText)
    #expect(devices.first?["platform"]?.string == "apns")
    #expect(devices.first?["environment"]?.string == "sandbox")
    #expect(devices.first?["address"]?.string == "aaaaaaaa")
    #expect(devices.first?["active"]?.bool == true)
    #expect((devices.first?["registered_at"]?.string).flatMap(Timestamp.parse) != nil)

    let refused = try await mowdeck(
      ["device", "remove", "--user", "u-a", theirsText], database: db)
    #expect(refused.status == 1)
    #expect(
      refused.output.contains("device \(theirsText) belongs to user u-b, not u-a: not removed"),
      "\(refused.output)")
    #expect(try await directory.devices(ofUser: "u-b").map(\.deviceID) == [theirs])

    let removed = try await mowdeck(["device", "remove", "--user", "u-a", ownText], database: db)
    #expect(removed.status == 0, "\(removed.output)")
    #expect(removed.output.contains("removed device \(ownText) of u-a"))
    #expect(try await directory.devices(ofUser: "u-a").isEmpty)
    let again = try await mowdeck(["device", "remove", "--user", "u-a", ownText], database: db)
    #expect(again.status == 1)
    #expect(again.output.contains("no device \(ownText)"))
    let empty = try await mowdeck(["device", "list", "--user", "u-a", "--json"], database: db)
    #expect(try jsonOutput(empty.output).array != nil)
    #expect(try jsonOutput(empty.output).array?.isEmpty == true)
  }

  /// A revoked session's bearer is refused by a running ImageServeWorker's inbox at once,
  /// by token or every session of a user; other users' sessions keep working.
  @Test func revokedSessionsAreRefusedByTheInbox() async throws {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u-a", name: "A")
    try await directory.addUser(id: "u-b", name: "B")
    let (first, second) = (
      try await directory.createSession(userID: "u-a"),
      try await directory.createSession(userID: "u-a")
    )
    let other = try await directory.createSession(userID: "u-b")
    var environment = try WorkerProcess.environment(
      database: db, subjectPrefix: uniqueSubjectPrefix())
    environment["MOWDECK_NOTIFICATIONS_HTTP_LISTEN"] = "127.0.0.1:0"
    environment["MOWDECK_NOTIFICATIONS_IMAGE_SECRET"] = "revocation-test-secret-of-32-bytes"
    let server = try WorkerProcess("ImageServeWorker", environment: environment)
    defer { server.kill() }
    // Its first listener is the public one, where the inbox is.
    let port = try await listeningPort(of: server)
    func inbox(_ token: String) async throws -> String {
      try await runShellOffThePool(
        "curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer \(token)' "
          + "http://127.0.0.1:\(port)/api/v1/notifications/inbox")
    }
    #expect(try await inbox(first) == "200")

    let revoked = try await mowdeck(["session", "revoke", first], database: db)
    #expect(revoked.status == 0, "\(revoked.output)")
    #expect(revoked.output.contains("revoked 1 session"))
    #expect(try await inbox(first) == "401")
    #expect(try await inbox(second) == "200")
    let twice = try await mowdeck(["session", "revoke", first], database: db)
    #expect(twice.status == 1)
    #expect(twice.output.contains("no live session has that token"))

    let all = try await mowdeck(["session", "revoke", "--user", "u-a", "--all"], database: db)
    #expect(all.status == 0, "\(all.output)")
    #expect(all.output.contains("revoked 1 session of u-a"))
    #expect(try await inbox(second) == "401")
    #expect(try await inbox(other) == "200")
    let unknown = try await mowdeck(["session", "revoke", "--user", "u-z", "--all"], database: db)
    #expect(unknown.status == 2)
    #expect(unknown.output.contains("no user u-z"))
  }

  /// `alarm list`: the mower's alarms newest first, with their decision, photo and
  /// notifications; `--since` and `--limit` cut the list, `--json` is one array.
  @Test func alarmListShowsAMowersRecentAlarms() async throws {
    let db = try await TestDatabase.make()
    try await Directory(pool: db.pool).addUser(id: "u-1", name: "One")
    let old = try await db.queuePushedAlarm(mowerID: "m-1", userID: "u-1")
    let photo = try #require(try await db.reservePhotos(count: 1, mower: "m-1").first)
    try await db.queuePushedAlarm(mowerID: "m-2", userID: "u-1")
    try await db.pool.query(
      """
      UPDATE alarms SET received_at = CASE WHEN event_id = \(old)
        THEN now() - interval '2 hours' ELSE now() - interval '1 minute' END
      WHERE mower_id = 'm-1'
      """)
    let newest = try await db.pool.query(
      "SELECT event_id FROM photo_reservations WHERE image_id = \(photo)")[0].uuid("event_id")
    let notification = try await db.pool.query(
      "SELECT notification_id FROM notifications WHERE event_id = \(old)")[0].uuid(
        "notification_id")

    let json = try await mowdeck(["alarm", "list", "--mower", "m-1", "--json"], database: db)
    #expect(json.status == 0, "\(json.output)")
    let alarms = try #require(try jsonOutput(json.output).objects)
    #expect(
      alarms.map { $0["event_id"]?.string }
        == [newest.uuidString.lowercased(), old.uuidString.lowercased()])
    #expect(alarms.map { $0["photo"]?.string } == ["pending", "none"])
    #expect(alarms.map { $0["decision"]?.string } == ["pushed", "pushed"])
    #expect(alarms[1]["notification_ids"]?.strings == [notification.uuidString.lowercased()])
    #expect(alarms[1]["mower_name"]?.string == "Robbie")
    #expect(alarms[0]["reason"]?.isNull == true)
    #expect(alarms.allSatisfy { ($0["received_at"]?.string).flatMap(Timestamp.parse) != nil })

    let since = Timestamp.format(Date().addingTimeInterval(-3600))
    let recent = try await mowdeck(
      ["alarm", "list", "--mower", "m-1", "--since", since, "--json"], database: db)
    let recentAlarms = try #require(try jsonOutput(recent.output).objects)
    #expect(recentAlarms.map { $0["event_id"]?.string } == [newest.uuidString.lowercased()])
    let limited = try await mowdeck(
      ["alarm", "list", "--mower", "m-1", "--limit", "1", "--json"], database: db)
    #expect(try jsonOutput(limited.output).array?.count == 1)

    let text = try await mowdeck(["alarm", "list", "--mower", "m-1"], database: db)
    #expect(text.status == 0)
    let rows = text.output.split(separator: "\n")
    #expect(rows.first?.hasPrefix("received ") == true, "\(text.output)")
    #expect(rows.count == 4)
    #expect(rows[2].contains(newest.uuidString.lowercased()) && rows[2].contains(" pending "))
    #expect(rows[3].contains(old.uuidString.lowercased()))
    #expect(rows[3].contains(" none ") && rows[3].hasSuffix(notification.uuidString.lowercased()))
    let none = try await mowdeck(["alarm", "list", "--mower", "m-9"], database: db)
    #expect(none.status == 0)
    #expect(none.output.contains("no alarms of mower m-9"))
  }

  /// A reserved photo's state is read from its reservation and stored row: a failure with
  /// its reason, a capture fresh or expired.
  @Test func alarmListTellsHowFarEachPhotoGot() async throws {
    let db = try await TestDatabase.make()
    let images = try await db.reservePhotos(count: 3, mower: "m-3")
    try await db.pool.query(
      """
      WITH outcome AS (
        SELECT * FROM unnest(\(PostgresArray(images.map(\.uuidString)))::uuid[],
                             ARRAY['failed', 'captured', 'captured'],
                             ARRAY[now() + interval '1 day', now() - interval '1 second',
                                   now() + interval '1 day']) AS x(image_id, state, expires_at)
      ), reservation AS (
        UPDATE photo_reservations r SET state = o.state FROM outcome o
        WHERE r.image_id = o.image_id
      )
      INSERT INTO notification_images (image_id, event_id, state, jpeg, failure_reason, expires_at)
      SELECT o.image_id, r.event_id, o.state,
             CASE WHEN o.state = 'captured' THEN '\\xffd8'::bytea END,
             CASE WHEN o.state = 'failed' THEN 'asleep' END, o.expires_at
      FROM outcome o JOIN photo_reservations r ON r.image_id = o.image_id
      """)
    let result = try await mowdeck(["alarm", "list", "--mower", "m-3", "--json"], database: db)
    let alarms = try #require(try jsonOutput(result.output).objects)
    #expect(
      Set(alarms.compactMap { $0["photo"]?.string }) == [
        "failed:asleep", "expired", "captured",
      ],
      "\(result.output)")
  }

  /// `storage --json` is one object with the text's tables, sizes in bytes.
  @Test func storageJSONHoldsTheSameTables() async throws {
    let db = try await TestDatabase.make()
    try await db.reservePhotos(count: 2, mower: "m-1")
    let result = try await mowdeck(["storage", "--json"], database: db)
    #expect(result.status == 0, "\(result.output)")
    let report = try #require(try jsonOutput(result.output).object)
    let history = try #require(report["history"]?.objects)
    #expect(
      history.map { $0["table"]?.string }
        == ["alarms", "notifications", "deliveries", "photo_reservations", "ingress_messages"])
    #expect(history.first?["rows"]?.integer == 2)
    #expect(history.last?["oldest"]?.isNull == true)
    #expect(report["photo_reservations"]?.integerMembers == ["pending": 2])
    #expect(report["photos"]?.array != nil)
    #expect(report["events"]?.array != nil)
    #expect((report["on_disk"]?["events"]?.integer ?? 0) > 0)
  }
}
