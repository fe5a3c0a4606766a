import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import FCMWorker

/// The FCMWorker as a process against the FCM sandbox over HTTPS, with real PostgreSQL and
/// NATS: each registration token gets its alarm, a gone or invalid one is switched off, a
/// busy FCM is retried not before its `Retry-After`, one access token serves many sends and
/// is renewed once when FCM ends it, and no credential reaches the log.
@Suite(.serialized) struct FCMProcessTests {
  struct Stack {
    let db: TestDatabase
    let sandbox: FCMSandboxHarness
    let environment: [String: String]

    init() async throws {
      db = try await TestDatabase.make()
      let record = FileManager.default.temporaryDirectory.appendingPathComponent(
        "fcm-\(UUID()).jsonl")
      sandbox = try await FCMSandboxHarness.start(record: record)
      var environment = try WorkerProcess.environment(
        database: db, subjectPrefix: uniqueSubjectPrefix())
      environment.merge(sandbox.workerEnvironment) { $1 }
      self.environment = environment
      try await Directory(pool: db.pool).addUser(id: "u-1", name: "Owner")
      try await Directory(pool: db.pool).grant(mowerID: "m-1", userID: "u-1")
    }

    /// Registers a phone whose registration token the sandbox answers `answer` ("OK" unless
    /// given, or an FCM error code).
    func phone(answer: String? = nil, retryAfter: Int? = nil, delayMs: Int? = nil) async throws
      -> String
    {
      let token = try await sandbox.makeToken(
        answer: answer, retryAfter: retryAfter, delayMs: delayMs)
      try await Directory(pool: db.pool).addDevice(
        userID: "u-1", address: try .checkedFCM(token: token))
      return token
    }

    func worker(_ extra: [String: String] = [:]) throws -> WorkerProcess {
      try WorkerProcess("FCMWorker", environment: environment.merging(extra) { $1 })
    }

    /// The sends FCM answered 200.
    func sent() throws -> [FCMRecordLine] {
      try sandbox.recordLines().filter { $0.route == "send" && $0.status == 200 }
    }

    func waitForSent(_ count: Int, timeout: Duration = .seconds(30)) async throws {
      try await eventually(timeout: timeout, "\(count) deliveries sent") {
        try await db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == count
      }
    }

    func stop() { sandbox.stop() }
  }

  /// The message a record line shows, as FCM read it.
  static func message(_ line: FCMRecordLine) throws -> FCMMessage {
    try WireCoding.decode(FCMMessage.self, from: WireCoding.encode(try #require(line.message)))
  }

  @Test func eachPhoneGetsItsAlarmAndAGoneOrInvalidTokenIsSwitchedOff() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    let good = try await stack.phone()
    let gone = try await stack.phone(answer: "UNREGISTERED")
    let invalid = try await stack.phone(answer: "INVALID_ARGUMENT")
    let eventID = try await stack.db.queuePushedAlarm()
    let worker = try stack.worker(["MOWDECK_LOG_LEVEL": "debug"])
    defer { worker.stop() }
    try await eventually(timeout: .seconds(30), "the three outcomes recorded") {
      try await stack.db.count("SELECT count(*) AS n FROM deliveries WHERE state <> 'queued'")
        == 3
    }
    let lines = try stack.sandbox.recordLines().filter { $0.route == "send" }
    let delivered = try #require(lines.first { $0.registrationToken == good })
    #expect(delivered.status == 200 && delivered.project == FCMSandboxHarness.projectID)
    let message = try Self.message(delivered)
    let notificationID = try #require(
      try await stack.db.pool.query("SELECT notification_id FROM notifications").first?.uuid(
        "notification_id"))
    #expect(message.token == good)
    #expect(message.notification.title == "Robbie was lifted")
    #expect(message.data.notificationID == notificationID.uuidString.lowercased())
    #expect(message.data.kind == "mower_lifted" && message.data.imageURL == nil)
    #expect(message.android.priority == "HIGH")
    #expect(message.android.notification.tag == message.data.notificationID)
    #expect(message.android.notification.image == nil)
    #expect(lines.first { $0.registrationToken == gone }?.error == "UNREGISTERED")
    #expect(lines.first { $0.registrationToken == invalid }?.error == "INVALID_ARGUMENT")

    let story = try await EventLog().story(of: eventID, pool: stack.db.pool)
    #expect(story.filter { $0.type == "delivery.sent" }.count == 1)
    #expect(story.filter { $0.type == "delivery.failed" }.count == 2)
    let deactivated = try story.filter { $0.type == "device.deactivated" }
      .map { try $0.decode(DeviceDeactivated.self) }
    #expect(deactivated.count == 2)
    #expect(deactivated.allSatisfy { $0.platform == .fcm })
    #expect(
      Set(deactivated.map(\.reason)) == ["unregistered", "invalid_registration_token"])
    #expect(
      try await stack.db.count("SELECT count(*) AS n FROM devices WHERE NOT active") == 2)
    try Self.expectNoSecret(in: worker.log, stack: stack, tokens: [good, gone, invalid])
  }

  /// Neither an access token, a registration token, the service account's key nor a
  /// signed assertion in the log, even at debug level.
  static func expectNoSecret(in log: String, stack: Stack, tokens: [String]) throws {
    #expect(!log.isEmpty)
    let accessTokens = try stack.sandbox.grants().compactMap(\.accessToken)
    let key = try FCMSandboxHarness.serviceAccountKey().privateKeyPEM
      .split(separator: "\n").dropFirst().prefix(3).map(String.init)
    let secrets =
      accessTokens + accessTokens.map { String($0.dropFirst("ya29.sandbox-".count)) } + tokens
      + tokens.map { String($0.split(separator: ":")[1]) } + key
    for secret in secrets {
      #expect(!log.contains(secret), "\(secret.prefix(12))… in the log")
    }
    // The JOSE header of an RS256 assertion, whole: a JWT is cut to its first characters.
    #expect(!log.contains("eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"))
  }

  @Test func aQuotaExceededIsRetriedNotBeforeItsRetryAfter() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    _ = try await stack.phone(answer: "QUOTA_EXCEEDED", retryAfter: 90)
    let eventID = try await stack.db.queuePushedAlarm()
    let worker = try stack.worker()
    defer { worker.stop() }
    var retry: DeliveryRetryScheduled?
    try await eventually(timeout: .seconds(30), "the retry to be scheduled") {
      retry = try await EventLog().story(of: eventID, pool: stack.db.pool)
        .first { $0.type == "delivery.retry_scheduled" }
        .map { try $0.decode(DeliveryRetryScheduled.self) }
      return retry != nil
    }
    #expect(retry?.status == 429)
    #expect(retry?.reason == "quota_exceeded")
    #expect(retry?.platform == .fcm)
    #expect((retry?.retryInMilliseconds ?? 0) >= 90_000)
    #expect(
      try await stack.db.count(
        """
        SELECT count(*) AS n FROM deliveries
        WHERE state = 'queued' AND next_attempt_at > now() + interval '80 seconds'
        """) == 1)
  }

  @Test func aSenderIDMismatchFailsForGoodAndKeepsTheDevice() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    _ = try await stack.phone(answer: "SENDER_ID_MISMATCH")
    let eventID = try await stack.db.queuePushedAlarm()
    let worker = try stack.worker()
    defer { worker.stop() }
    var failed: DeliveryFailed?
    try await eventually(timeout: .seconds(30), "the delivery to fail") {
      failed = try await EventLog().story(of: eventID, pool: stack.db.pool)
        .first { $0.type == "delivery.failed" }
        .map { try $0.decode(DeliveryFailed.self) }
      return failed != nil
    }
    #expect(failed?.status == 403 && failed?.reason == "sender_id_mismatch")
    #expect(try await stack.db.count("SELECT count(*) AS n FROM devices WHERE active") == 1)
    #expect(try stack.sandbox.recordLines().filter { $0.route == "send" }.count == 1)
  }

  @Test func fiftyDeliveriesShareOneAccessToken() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    for _ in 0..<50 { _ = try await stack.phone() }
    try await stack.db.queuePushedAlarm()
    let worker = try stack.worker()
    defer { worker.stop() }
    try await stack.waitForSent(50)
    #expect(try stack.sent().count == 50)
    #expect(try stack.sandbox.grants().count == 1)
    #expect(Set(try stack.sent().compactMap(\.accessToken)).count == 1)
  }

  @Test func anAccessTokenFCMEndedIsRenewedOnceAndTheMessagesSent() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    for _ in 0..<5 { _ = try await stack.phone() }
    try await stack.db.queuePushedAlarm()
    let worker = try stack.worker()
    defer { worker.stop() }
    try await stack.waitForSent(5)
    #expect(try await stack.sandbox.expireAccessTokens() == 1)
    let second = try await stack.db.queuePushedAlarm()
    try await stack.waitForSent(10)
    let sends = try stack.sandbox.recordLines().filter { $0.route == "send" }
    let refused = sends.filter { $0.status == 401 }
    #expect((1...5).contains(refused.count))
    #expect(refused.allSatisfy { $0.error == "UNAUTHENTICATED" })
    #expect(try stack.sandbox.grants().count == 2)
    #expect(try stack.sent().count == 10)
    // Renewed and sent at once: no message waited for a retry.
    let story = try await EventLog().story(of: second, pool: stack.db.pool).map(\.type)
    #expect(story.filter { $0 == "delivery.sent" }.count == 5)
    #expect(!story.contains("delivery.retry_scheduled"))
  }

  @Test func aRefusedServiceAccountMakesDeliveriesWaitWithoutAStormOfGrants() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    try await stack.sandbox.setTokenEndpoint(answer: "INVALID_GRANT")
    for _ in 0..<5 { _ = try await stack.phone() }
    try await stack.db.queuePushedAlarm()
    let worker = try stack.worker()
    defer { worker.stop() }
    try await eventually(timeout: .seconds(30), "every delivery to wait") {
      try await stack.db.count(
        """
        SELECT count(*) AS n FROM deliveries
        WHERE state = 'queued' AND next_attempt_at > now() + interval '250 seconds'
        """) == 5
    }
    #expect(try stack.sandbox.recordLines().filter { $0.route == "token" }.count == 1)
    #expect(try stack.sandbox.recordLines().filter { $0.route == "send" }.isEmpty)
    #expect(worker.log.contains("refused the service account"))
    try Self.expectNoSecret(in: worker.log, stack: stack, tokens: [])
    #expect(try await stack.db.count("SELECT count(*) AS n FROM devices WHERE active") == 5)
  }

  @Test func theFollowUpCarriesThePhotoURLUnderTheAlarmsTag() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    let token = try await stack.phone()
    let eventID = try await stack.db.queuePushedAlarm(imageID: UUID(), followup: true)
    let worker = try stack.worker([
      "MOWDECK_NOTIFICATIONS_IMAGE_SECRET": "a-test-secret-of-enough-length-0123456789",
      "MOWDECK_NOTIFICATIONS_IMAGE_BASE_URL": "https://owner.example",
    ])
    defer { worker.stop() }
    try await stack.waitForSent(2)
    let messages = try stack.sent().map(Self.message)
    #expect(messages.allSatisfy { $0.token == token })
    let alarm = try #require(messages.first { $0.data.imageURL == nil })
    let followUp = try #require(messages.first { $0.data.imageURL != nil })
    #expect(alarm.android.notification.image == nil)
    #expect(followUp.android.notification.tag == alarm.android.notification.tag)
    #expect(followUp.android.notification.image == followUp.data.imageURL)
    #expect(
      followUp.data.imageURL?.hasPrefix(
        "https://owner.example/api/v1/notifications/push-images/\(alarm.data.notificationID)?e=")
        == true)
    let sent = try await EventLog().story(of: eventID, pool: stack.db.pool)
      .filter { $0.type == "delivery.sent" }.map { try $0.decode(DeliverySent.self) }
    #expect(sent.count == 2)
    #expect(sent.filter { $0.followup == true }.count == 1)
    #expect(sent.first { $0.followup == true }?.hasImage == true)
  }

  @Test func aWorkerWithoutCredentialsRefusesToStartWithOneLine() async throws {
    let db = try await TestDatabase.make()
    var environment = try WorkerProcess.environment(
      database: db, subjectPrefix: uniqueSubjectPrefix())
    environment["MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH"] = nil
    let unset = try await runCommand("FCMWorker", [], environment: environment)
    #expect(unset.status == 2)
    #expect(
      unset.output
        == "FCMWorker: configuration error: MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH is not set\n"
    )

    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("not-a-service-account-\(UUID().uuidString.prefix(8)).json")
    try Data(#"{"type":"authorized_user","client_secret":"d-FL95Q19q7MQmFpd7hHD0Ty"}"#.utf8)
      .write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    environment["MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH"] = file.path
    let wrong = try await runCommand("FCMWorker", [], environment: environment)
    #expect(wrong.status == 2)
    #expect(wrong.output.split(separator: "\n").count == 1, "\(wrong.output)")
    #expect(wrong.output.hasPrefix("FCMWorker: configuration error:"))
    #expect(wrong.output.contains("MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH"))
    #expect(!wrong.output.contains("d-FL95Q19q7MQmFpd7hHD0Ty"))
  }
}
