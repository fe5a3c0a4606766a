import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// The operator command line as a process: help, misuse, and the directory commands.
@Suite struct CommandLineTests {
  @Test(arguments: [
    ["migrate"], ["fleet", "import"], ["user", "add"], ["mower", "grant"], ["device", "add"],
    ["device", "list"], ["device", "remove"], ["session", "create"], ["session", "revoke"],
    ["publish"], ["replay"], ["check-decisions"], ["trace"], ["alarm", "list"], ["storage"],
  ])
  func everyCommandHasHelp(command: [String]) async throws {
    let result = try await mowdeck(command + ["--help"])
    #expect(result.status == 0)
    #expect(result.output.contains("usage: mowdeck " + command.joined(separator: " ")))
  }

  @Test(arguments: [
    (["frobnicate"], "unknown command"), (["fleet", "import"], "missing FILE"),
    (["user", "add", "--id", "u-1"], "--name is required"), (["trace", "not-a-uuid"], "UUID"),
    (["replay", "--timeout"], "--timeout needs a value"),
  ])
  func misuseExitsTwoWithAClearLine(arguments: [String], message: String) async throws {
    let result = try await mowdeck(arguments)
    #expect(result.status == 2)
    #expect(result.output.contains(message), "\(result.output)")
  }

  @Test func directoryCommandsWorkAndFleetImportIsIdempotent() async throws {
    let db = try await TestDatabase.make()
    let fleet = TestServers.fixture("fleet40.fleet.json")
    for _ in 0..<2 {
      let imported = try await mowdeck(["fleet", "import", fleet], database: db)
      #expect(imported.status == 0, "\(imported.output)")
    }
    #expect(try await db.count("SELECT count(*) AS n FROM devices") == 71)
    #expect(
      try await mowdeck(["user", "add", "--id", "u-x", "--name", "X"], database: db).status == 0)
    #expect(
      try await mowdeck(["mower", "grant", "--mower", "m-x", "--user", "u-x"], database: db).status
        == 0)
    let badToken = try await mowdeck(
      ["device", "add", "--user", "u-x", "--token", "abc"], database: db)
    #expect(badToken.status == 2)
    #expect(badToken.output.contains("64 hexadecimal digits"))
    let session = try await mowdeck(["session", "create", "--user", "u-x"], database: db)
    #expect(session.status == 0)
    let token = session.output.split(separator: "\n").last.map(String.init) ?? ""
    #expect(token.count == 64)
    #expect(try await Directory(pool: db.pool).user(forSessionToken: token) == "u-x")
    let storage = try await mowdeck(["storage"], database: db)
    #expect(storage.status == 0)
    #expect(storage.output.contains("events by type and age"))
    // The history table names each table with its row count (an empty schema: 0).
    #expect(
      storage.output.split(separator: "\n").contains {
        $0.hasPrefix("ingress_messages") && $0.split(separator: " ").dropFirst().first == "0"
      })
  }

  /// `mowdeck device add` for each platform, checked as the registration route checks, and
  /// `mowdeck device list` without whole addresses.
  @Test func devicesOfEveryPlatformAreAddedAndListed() async throws {
    let db = try await TestDatabase.make()
    try await Directory(pool: db.pool).addUser(id: "u-x", name: "X")
    let add = { (arguments: [String]) in
      try await mowdeck(["device", "add", "--user", "u-x"] + arguments, database: db)
    }
    let apns = try await add(["--token", String(repeating: "c", count: 64)])
    #expect(apns.status == 0, "\(apns.output)")
    #expect(apns.output.contains(" apns"))
    let key = Base64URL.encode([4] + [UInt8](repeating: 7, count: 64))
    let secret = Base64URL.encode([UInt8](repeating: 9, count: 16))
    let webPush = try await add([
      "--platform", "webpush", "--endpoint", "https://fcm.googleapis.com/fcm/send/secret-path",
      "--p256dh", key, "--auth", secret,
    ])
    #expect(webPush.status == 0, "\(webPush.output)")
    let loopback = try await add([
      "--platform", "webpush", "--endpoint", "https://127.0.0.1/x", "--p256dh", key, "--auth",
      secret,
    ])
    #expect(loopback.status == 2)
    #expect(loopback.output.contains("not an allowed push service"))
    #expect(try await add(["--platform", "fcm", "--token", "fcm:token_1"]).status == 0)
    let ntfy = try await add(["--platform", "ntfy"])
    #expect(ntfy.status == 2)
    #expect(ntfy.output.contains("ntfy is not offered"))
    #expect(try await add(["--platform", "pager"]).output.contains("platform must be"))

    let list = try await mowdeck(["device", "list", "--user", "u-x"], database: db)
    #expect(list.status == 0)
    let lines = list.output.split(separator: "\n").filter { $0.contains("  active  ") }
    #expect(lines.count == 3, "\(list.output)")
    #expect(lines[0].contains("  apns  production  cccccccc  active  "))
    #expect(lines[1].contains("  webpush  -  fcm.googleapis.com  active  "))
    #expect(lines[2].contains("  fcm  -  fcm:toke  active  "))
    #expect(!list.output.contains("secret-path"))
  }

  /// With an ntfy server configured, each `mowdeck device add --platform ntfy` makes a
  /// topic of its own (`mowdeck-` and 32 hex digits) and prints where to subscribe to it.
  @Test func eachNtfyDeviceAddedGetsATopicOfItsOwnAndItsSubscribeURL() async throws {
    let db = try await TestDatabase.make()
    try await Directory(pool: db.pool).addUser(id: "u-n", name: "N")
    let ntfyURL = "https://ntfy.example.org"
    var topics: [String] = []
    for _ in 0..<2 {
      let added = try await mowdeck(
        ["device", "add", "--user", "u-n", "--platform", "ntfy"], database: db,
        environment: ["MOWDECK_NOTIFICATIONS_NTFY_URL": ntfyURL])
      #expect(added.status == 0, "\(added.output)")
      let lines = added.output.split(separator: "\n")
      #expect(lines.contains { $0.hasPrefix("device ") && $0.hasSuffix(" ntfy") }, "\(lines)")
      let subscribe = try #require(lines.first { $0.hasPrefix("subscribe ") }, "\(lines)")
      let url = subscribe.dropFirst("subscribe ".count)
      #expect(url.hasPrefix(ntfyURL + "/mowdeck-"), "\(url)")
      let topic = String(url.dropFirst(ntfyURL.count + 1))
      let hex = topic.dropFirst("mowdeck-".count)
      #expect(hex.count == 32 && hex.allSatisfy { "0123456789abcdef".contains($0) }, "\(topic)")
      topics.append(topic)
    }
    #expect(topics[0] != topics[1])
    let stored = try await db.pool.query(
      "SELECT token FROM devices WHERE user_id = 'u-n' AND platform = 'ntfy' AND active")
    #expect(Set(try stored.map { try $0.string("token") }) == Set(topics))

    let list = try await mowdeck(["device", "list", "--user", "u-n"], database: db)
    #expect(list.status == 0)
    let rows = list.output.split(separator: "\n").filter { $0.contains("  ntfy  ") }
    #expect(rows.count == 2, "\(list.output)")
    #expect(rows.allSatisfy { $0.contains("  ntfy  -  mowdeck-  active  ") }, "\(list.output)")
    // The list never shows a whole topic: knowing it is enough to read the alarms.
    #expect(topics.allSatisfy { !list.output.contains($0) })
  }

  /// `mowdeck trace` prints every field of every event as `key=value`, its summary from the
  /// typed data, and with `--json` each event as one object with its data as stored.
  @Test func traceTellsAnAlarmsStory() async throws {
    let db = try await TestDatabase.make()
    let (alarm, image) = (UUID(), UUID())
    let imageText = image.uuidString.lowercased()
    try await db.pool.withTransaction { tx in
      try EventLog().append(
        [
          NewEvent(
            AlarmReceived(
              mowerID: "m-1", kind: "mower_lifted", alarmClass: "theft", occurredAt: Date(),
              decidedOn: Date(), mowerName: "Robbie", reason: nil, streamSequence: 7),
            correlationID: alarm),
          NewEvent(ImageReserved(imageID: image, mowerID: "m-1"), correlationID: alarm),
          NewEvent(
            PhotoFailed(
              imageID: image, reason: "asleep", detail: nil, afterMilliseconds: 250, attempt: 1),
            correlationID: alarm),
        ], in: tx)
    }
    let plain = try await mowdeck(["trace", alarm.uuidString], database: db)
    #expect(plain.status == 0, "\(plain.output)")
    let lines = plain.output.split(separator: "\n")
    #expect(
      lines.contains {
        $0.contains("alarm.received") && $0.contains(" mower_name=Robbie occurred_at=")
          && $0.hasSuffix(" reason=null stream_seq=7")
      })
    #expect(
      lines.contains {
        $0.hasSuffix("image.reserved            image_id=\(imageText) mower_id=m-1")
      })
    #expect(
      lines.contains {
        $0.hasSuffix("after_ms=250 attempt=1 detail=null image_id=\(imageText) reason=asleep")
      })
    let summary = try await mowdeck(["trace", alarm.uuidString, "--summary"], database: db)
    #expect(summary.output.contains("  not pushed yet, photo failed (asleep) at +"))
    let json = try await mowdeck(["trace", alarm.uuidString, "--json"], database: db)
    #expect(
      json.output.contains(
        #"{"data":{"after_ms":250,"attempt":1,"detail":null,"image_id":"\#(imageText)","reason":"asleep"},"position":"#
      ))
    #expect(json.output.contains(#""type":"photo.failed"}"#))
  }

  /// The trace names each delivery's platform and the photo's follow-ups.
  @Test func traceShowsPlatformsAndFollowUps() async throws {
    let db = try await TestDatabase.make()
    let alarm = UUID()
    @Sendable func queued(_ platform: DevicePlatform, followup: Bool? = nil) -> NewEvent {
      NewEvent(
        DeliveryQueued(
          deliveryID: UUID(), notificationID: UUID(), deviceID: UUID(), platform: platform,
          environment: platform == .apns ? "production" : nil, tokenPrefix: "abcdefgh",
          followup: followup),
        correlationID: alarm)
    }
    try await db.pool.withTransaction { tx in
      try EventLog().append(
        [
          NewEvent(
            AlarmReceived(
              mowerID: "m-1", kind: "mower_lifted", alarmClass: "theft", occurredAt: Date(),
              decidedOn: Date(), mowerName: nil, reason: nil, streamSequence: 1),
            correlationID: alarm),
          queued(.apns), queued(.webpush), queued(.webpush), queued(.fcm),
          queued(.webpush, followup: true), queued(.webpush, followup: true),
          queued(.fcm, followup: true),
        ], in: tx)
    }
    let plain = try await mowdeck(["trace", alarm.uuidString], database: db)
    let lines = plain.output.split(separator: "\n").filter { $0.contains("delivery.queued") }
    #expect(lines.count == 7)
    #expect(lines.filter { $0.contains(" followup=true ") && $0.contains(" platform=") }.count == 3)
    #expect(lines.filter { $0.contains(" platform=webpush ") }.count == 4)
    let summary = try await mowdeck(["trace", alarm.uuidString, "--summary"], database: db)
    #expect(
      summary.output.contains(
        "devices: 1 apns and 2 webpush and 1 fcm, photo follow-ups: 2 webpush and 1 fcm"),
      "\(summary.output)")
  }
}
