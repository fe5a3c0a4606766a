import Events
import Foundation
import Infrastructure
import Synchronization
import TestSupport
import Testing

/// The APNs worker as a process, pushing through the APNsSandbox over real HTTP/2 and TLS,
/// with alarms decided by a real FanoutWorker.
@Suite(.serialized) struct APNsProcessTests {
  static let secret = "test-image-secret-of-32-bytes-or-more"

  final class Stack: @unchecked Sendable {
    let db: TestDatabase
    let subjects: Subjects
    let record: URL
    let behaviours: URL
    var environment: [String: String]
    var processes: [WorkerProcess] = []
    let sandbox: WorkerProcess
    let nats: NATSClient

    init(behaviours table: [String: String] = [:], extra: [String: String] = [:]) async throws {
      db = try await TestDatabase.make()
      let prefix = uniqueSubjectPrefix()
      subjects = Subjects(prefix: prefix)
      let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("apns-\(prefix)")
      try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
      record = scratch.appendingPathComponent("pushes.jsonl")
      behaviours = scratch.appendingPathComponent("behaviours.json")
      try Data(JSON.encode(table.mapValues(JSONValue.string)).utf8).write(to: behaviours)
      environment = try WorkerProcess.environment(database: db, subjectPrefix: prefix)
      let harness = try await APNsSandboxHarness.start(
        environment: environment, record: record, behaviourFile: behaviours)
      sandbox = harness.process
      environment.merge(harness.workerEnvironment) { $1 }
      environment["MOWDECK_NOTIFICATIONS_IMAGE_SECRET"] = APNsProcessTests.secret
      environment["MOWDECK_NOTIFICATIONS_APP_URL"] = "https://owner.example"
      environment["MOWDECK_APNS_LEASE_SECONDS"] = "4"
      environment.merge(extra) { $1 }
      nats = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "apns-tests", logger: TestServers.logger)
      processes.append(try WorkerProcess("FanoutWorker", environment: environment))
    }

    func start(_ executable: String) throws -> WorkerProcess {
      let process = try WorkerProcess(executable, environment: environment)
      processes.append(process)
      return process
    }

    func stopAll() {
      for item in processes { item.stop() }
      sandbox.stop()
    }

    /// A user seeing mower `m-1`, with one device per token.
    func fleet(tokens: [String], environment deviceEnvironment: String = "production") async throws
    {
      let directory = Directory(pool: db.pool)
      try await directory.addUser(id: "u-1", name: "Owner")
      try await directory.grant(mowerID: "m-1", userID: "u-1")
      for token in tokens {
        try await directory.addDevice(userID: "u-1", token: token, environment: deviceEnvironment)
      }
    }

    func alarm(kind: String = "mower_stuck", mower: String = "m-1") async throws -> UUID {
      let id = UUID()
      let publisher = try await AlarmPublisher(nats: nats, subjects: subjects, pool: db.pool)
      let payload = JSON.encode([
        "event_id": .string(id.uuidString.lowercased()), "mower_id": .string(mower),
        "kind": .string(kind),
        "occurred_at": .string(Timestamp.format(Date())), "mower_name": "Robbie",
        "reason": "trapped",
      ])
      _ = try await publisher.publishAndWait(
        subject: subjects.alarm(mowerID: mower), payload: Array(payload.utf8), timeout: .seconds(20)
      )
      return id
    }

    func pushes() -> [[String: JSONValue]] {
      let text = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").compactMap { JSON.object(from: Array($0.utf8)) }
    }

    func queued() async throws -> Int {
      try await db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'queued'")
    }

    func state(ofTokenPrefix token: String) async throws -> (
      delivery: String, active: Bool, reason: String?
    ) {
      let row = try await db.pool.query(
        """
        SELECT d.state, v.active,
          (SELECT data->>'reason' FROM events WHERE type = 'delivery.failed'
             AND data->>'delivery_id' = d.delivery_id::text) AS reason
        FROM deliveries d JOIN devices v USING (device_id) WHERE v.token = \(token)
        """)[0]
      return (try row.string("state"), try row.bool("active"), try row.optionalString("reason"))
    }
  }

  static func token(_ n: Int) -> String {
    String(repeating: String(format: "%x", n % 16), count: 48) + String(format: "%016x", n)
  }

  @Test func theResponseMatrix() async throws {
    let tokens = (1...9).map(Self.token)
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    let stack = try await Stack(behaviours: [
      tokens[1]: "400",  // BadDeviceToken
      tokens[2]: "410:\(now + 3_600_000)",  // Unregistered after the registration
      tokens[3]: "410:1000",  // Unregistered long before it: the device stays active
      tokens[4]: "429x1",
      tokens[5]: "500x2",
      tokens[6]: "403:ExpiredProviderTokenx1",
      tokens[7]: "goawayx1",
      tokens[8]: "403:BadCertificate",
    ])
    defer { stack.stopAll() }
    try await stack.fleet(tokens: tokens)
    _ = try stack.start("APNsWorker")
    let alarm = try await stack.alarm()
    try await eventually(timeout: .seconds(40), "every delivery to end") {
      try await stack.queued() == 0
    }
    let expected: [(Int, String, Bool, String?)] = [
      (0, "sent", true, nil), (1, "failed", false, "BadDeviceToken"),
      (2, "failed", false, "Unregistered"), (3, "failed", true, "Unregistered"),
      (4, "sent", true, nil), (5, "sent", true, nil), (6, "sent", true, nil),
      (7, "sent", true, nil),
      (8, "failed", true, "BadCertificate"),
    ]
    for (index, delivery, active, reason) in expected {
      let state = try await stack.state(ofTokenPrefix: tokens[index])
      #expect(state.delivery == delivery, "token \(index)")
      #expect(state.active == active, "token \(index)")
      #expect(state.reason == reason, "token \(index)")
    }
    let story = try await EventLog().story(of: alarm, pool: stack.db.pool).map(\.type)
    #expect(story.filter { $0 == "device.deactivated" }.count == 2)
    let retried = try await stack.db.pool.query(
      """
      SELECT DISTINCT data->>'token_prefix' AS t FROM events
      WHERE type = 'delivery.retry_scheduled' AND correlation_id = \(alarm)
      """
    ).map { try $0.string("t") }
    // 429 and 500 are retried later. The expired provider token is retried at once with a
    // new token, on the same connection; when that retry races the GOAWAY of tokens[7] (a
    // clean-clone CI run, 2026-11-29), its stream fails and it is retried later on the new
    // connection instead: the same collapse id, so harmless, and then sent.
    let later = Set(retried).subtracting([String(tokens[6].prefix(8))])
    #expect(later == [String(tokens[4].prefix(8)), String(tokens[5].prefix(8))])
    #expect(story.filter { $0 == "delivery.sent" }.count == 5)
    // Every push carried the contract's headers; repeats of one notification share its id.
    let pushes = stack.pushes()
    #expect(pushes.count >= 9 + 1 + 2 + 1)
    let collapse = Set(
      pushes.compactMap { ($0["headers"]?.object)?["apns-collapse-id"]?.string })
    #expect(collapse.count == 1)
  }

  /// Each attempt signs its own URL at send time (`PushPayloadTests` pins the arithmetic).
  /// The expiry is in whole seconds, so a retry within the same second may carry the same
  /// URL. Two failures make three sends, the third at least 1.5 s after the first (retry
  /// delays of 0.5–1 s, then 1–2 s), so those two must differ.
  @Test func theImageURLVerifiesAndARetryCarriesANewExpiry() async throws {
    let token = Self.token(1)
    let stack = try await Stack(behaviours: [token: "500x2"])
    defer { stack.stopAll() }
    try await stack.fleet(tokens: [token])
    _ = try stack.start("APNsWorker")
    _ = try await stack.alarm(kind: "mower_lifted")
    try await eventually(timeout: .seconds(30), "the push") { try await stack.queued() == 0 }
    let pushes = stack.pushes()
    let urls = pushes.compactMap {
      (($0["payload"]?.object)?["image_url"]?.string)
    }
    try #require(urls.count == 3)
    let sent = pushes.compactMap { ($0["time"]?.string).flatMap(Timestamp.parse) }
    try #require(sent.count == urls.count)
    let signer = ImageURLSigner(key: Array(Self.secret.utf8))
    for (url, sentAt) in zip(urls, sent) {
      let parts = try #require(URLComponents(string: url))
      #expect(parts.host == "owner.example")
      let id = String(parts.path.split(separator: "/").last ?? "")
      let e = parts.queryItems?.first { $0.name == "e" }?.value ?? ""
      let s = parts.queryItems?.first { $0.name == "s" }?.value ?? ""
      // The default TTL (600 s) after the send, give or take the second's rounding.
      let signedAt = Double(Int64(e) ?? 0) - 600
      #expect(abs(signedAt - sentAt.timeIntervalSince1970) < 2, "\(url) sent at \(sentAt)")
      guard case .valid = signer.verify(notificationID: id, expiry: e, signature: s, now: Date())
      else {
        Issue.record("\(url) does not verify")
        continue
      }
    }
    #expect(sent[2].timeIntervalSince(sent[0]) >= 1.5)
    #expect(urls[2] != urls[0], "a retry must carry a fresh URL")
  }

  @Test func routineAlarmsCarryNoImageURL() async throws {
    let token = Self.token(2)
    let stack = try await Stack()
    defer { stack.stopAll() }
    try await stack.fleet(tokens: [token], environment: "sandbox")
    _ = try stack.start("APNsWorker")
    _ = try await stack.alarm(kind: "battery_low")
    try await eventually(timeout: .seconds(20), "the push") { try await stack.queued() == 0 }
    let push = try #require(stack.pushes().first)
    let payload = try #require(push["payload"]?.object)
    #expect(payload["image_url"] == nil)
    #expect((payload["aps"]?.object)?["mutable-content"] == nil)
  }

  /// An operator finds the HTTP/2 loop by name in `top -H` or gdb.
  @Test func theCurlLoopsThreadIsNamed() async throws {
    let stack = try await Stack()
    defer { stack.stopAll() }
    let worker = try stack.start("APNsWorker")
    try await eventually(timeout: .seconds(20), "a thread named apns-http2") {
      let tasks =
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker.pid)/task")) ?? []
      return tasks.contains { task in
        (try? String(contentsOfFile: "/proc/\(worker.pid)/task/\(task)/comm", encoding: .utf8))?
          .hasPrefix("apns-http2") ?? false
      }
    }
  }

  @Test func aWorkerKilledMidBatchLosesNothingAndRepeatsOnlyWithTheSameCollapseID() async throws {
    let tokens = (1...20).map(Self.token)
    var slow: [String: String] = [:]
    for token in tokens { slow[token] = "slow:4000x1" }
    let stack = try await Stack(behaviours: slow)
    defer { stack.stopAll() }
    try await stack.fleet(tokens: tokens)
    let first = try stack.start("APNsWorker")
    _ = try await stack.alarm()
    // The first answer to each token takes 4 s: kill while they are all in flight, that is
    // once the first worker holds every lease and has had 1.5 s to send (its first TLS and
    // HTTP/2 set-up can take most of a second on a loaded machine).
    try await eventually(timeout: .seconds(20), "every delivery in the first worker's hand") {
      try await stack.db.count(
        "SELECT count(*) AS n FROM deliveries WHERE state = 'queued' AND lease_token IS NOT NULL")
        == 20
    }
    try await Task.sleep(for: .milliseconds(1500))
    first.kill()
    _ = try stack.start("APNsWorker")
    try await eventually(timeout: .seconds(40), "every delivery to be sent") {
      try await stack.queued() == 0
    }
    #expect(
      try await stack.db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 20)
    let pushes = stack.pushes()
    var byToken: [String: Set<String>] = [:]
    for push in pushes {
      guard let token = push["token"]?.string,
        let collapse = (push["headers"]?.object)?["apns-collapse-id"]?.string
      else { continue }
      byToken[token, default: []].insert(collapse)
    }
    #expect(byToken.count == 20)
    #expect(byToken.values.allSatisfy { $0.count == 1 })
    #expect(pushes.count > 20, "the kill came too late: nothing was repeated")
  }

  @Test func withoutAPNsSettingsTheWorkerRefusesToStartAndDeliveriesWait() async throws {
    let stack = try await Stack(extra: ["MOWDECK_NOTIFICATIONS_APNS_KEY_ID": ""])
    defer { stack.stopAll() }
    try await stack.fleet(tokens: [Self.token(3)])
    let worker = try stack.start("APNsWorker")
    #expect(try await worker.wait(timeout: .seconds(10)) == 2)
    let lines = worker.log.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.contains("MOWDECK_NOTIFICATIONS_APNS_KEY_ID") == true)
    _ = try await stack.alarm()
    #expect(try await stack.queued() == 1)
  }

  @Test func aMalformedTokenFailsWithoutARequest() async throws {
    let stack = try await Stack()
    defer { stack.stopAll() }
    try await stack.fleet(tokens: [Self.token(4)])
    // Bypasses the directory's validation, as a corrupted row would.
    try await stack.db.pool.query(
      "INSERT INTO devices (user_id, token, environment) VALUES ('u-1', 'not-a-token', 'production')"
    )
    _ = try stack.start("APNsWorker")
    _ = try await stack.alarm()
    try await eventually(timeout: .seconds(20), "both deliveries to end") {
      try await stack.queued() == 0
    }
    #expect(try await stack.state(ofTokenPrefix: "not-a-token").reason == "bad_token_format")
    #expect(stack.pushes().count == 1)
    #expect(!stack.pushes().contains { ($0["token"]?.string)?.contains("not-a") == true })
  }

  /// A handoff is pushed at once, without a claim: the 10-minute lease keeps every claim
  /// away, so only the handoff can have sent it; what is not a handoff is declined (ADR 0016).
  @Test func aHandedOffDeliveryIsPushedWithoutAClaim() async throws {
    let stack = try await Stack(extra: ["MOWDECK_APNS_LEASE_SECONDS": "600"])
    defer { stack.stopAll() }
    try await stack.fleet(tokens: [Self.token(5), Self.token(6)])
    // Decided while no APNs worker listens: the fan-out's offer finds nobody and releases.
    _ = try await stack.alarm()
    try await eventually("the release") {
      try await stack.db.count("SELECT count(*) AS n FROM deliveries WHERE lease_token IS NULL")
        == 2
    }
    // Leased again, as the fan-out writes them, and offered by hand.
    let rows = try await stack.db.pool.query(
      """
      UPDATE deliveries d SET lease_token = 4242, attempts = 1,
        lease_expires_at = now() + interval '10 minutes'
      FROM devices v, notifications n, alarms a
      WHERE v.device_id = d.device_id AND n.notification_id = d.notification_id
        AND a.event_id = n.event_id
      RETURNING d.delivery_id, d.notification_id, d.device_id, d.created_at, v.token,
        v.environment, v.registered_at, n.image_id, a.event_id, a.kind, a.mower_name, a.reason
      """)
    let first = try #require(rows.first)
    let handoff = DeliveryHandoff(
      leaseToken: 4242, eventID: try first.uuid("event_id"),
      createdAt: try first.date("created_at"), kind: try first.string("kind"),
      mowerName: try first.optionalString("mower_name"), reason: try first.optionalString("reason"),
      imageID: try first.optionalUUID("image_id"),
      deliveries: try rows.map {
        DeliveryHandoff.Delivery(
          deliveryID: try $0.uuid("delivery_id"), notificationID: try $0.uuid("notification_id"),
          deviceID: try $0.uuid("device_id"), token: try $0.string("token"),
          environment: try $0.string("environment"),
          deviceRegisteredAt: try $0.date("registered_at"))
      })
    _ = try stack.start("APNsWorker")
    let answer = Mutex<String?>(nil)
    try await eventually("the worker to answer") {
      do {
        let reply = try await stack.nats.request(
          stack.subjects.deliveryHandoff, handoff.encoded, timeout: .seconds(5))
        answer.withLock { $0 = String(decoding: reply.data, as: UTF8.self) }
        return true
      } catch NATSError.noResponders {
        return false
      }
    }
    #expect(answer.withLock { $0 } == "taken")
    try await eventually(timeout: .seconds(10), "both pushes") { try await stack.queued() == 0 }
    #expect(
      Set(stack.pushes().compactMap { $0["token"]?.string }) == [Self.token(5), Self.token(6)])
    let sent = try await stack.db.pool.query(
      "SELECT data->>'attempt' AS attempt FROM events WHERE type = 'delivery.sent'")
    #expect(try sent.map { try $0.string("attempt") } == ["1", "1"])

    // An offer read after the fan-out stopped waiting is declined (it may be released).
    var late = handoff
    late.answerBy = Date().addingTimeInterval(-1)
    let lateAnswer = try await stack.nats.request(
      stack.subjects.deliveryHandoff, late.encoded, timeout: .seconds(5))
    #expect(String(decoding: lateAnswer.data, as: UTF8.self) == "declined")
    #expect(stack.pushes().count == 2)

    let garbage = try await stack.nats.request(
      stack.subjects.deliveryHandoff, Array("not a handoff".utf8), timeout: .seconds(5))
    #expect(String(decoding: garbage.data, as: UTF8.self) == "declined")
  }

  /// A handed-off push slower than the short first lease is sent once: the worker renews
  /// the lease while the push lasts, so no claim takes the delivery again (ADR 0016).
  @Test func aSlowHandedOffPushOutlivesItsFirstLeaseAndIsSentOnce() async throws {
    let token = Self.token(7)
    let slow = (DeliveryHandoff.leaseSeconds + 3) * 1000
    let stack = try await Stack(
      behaviours: [token: "slow:\(slow)x1"], extra: ["MOWDECK_APNS_LEASE_SECONDS": "30"])
    defer { stack.stopAll() }
    try await stack.fleet(tokens: [token])
    _ = try stack.start("APNsWorker")
    // The worker answers offers before the alarm, so the alarm's offer is taken.
    try await eventually("the worker to listen for offers") {
      do {
        _ = try await stack.nats.request(
          stack.subjects.deliveryHandoff, Array("not a handoff".utf8), timeout: .seconds(5))
        return true
      } catch NATSError.noResponders {
        return false
      }
    }
    _ = try await stack.alarm()
    try await eventually(timeout: .seconds(30), "the push") { try await stack.queued() == 0 }
    #expect(stack.pushes().filter { $0["token"]?.string == token }.count == 1)
    let sent = try await stack.db.pool.query(
      "SELECT data->>'attempt' AS attempt FROM events WHERE type = 'delivery.sent'")
    #expect(try sent.map { try $0.string("attempt") } == ["1"])
  }
}
