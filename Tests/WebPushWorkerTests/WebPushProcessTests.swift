import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import WebPushWorker

/// The WebPushWorker as a process against the Web Push service double over HTTPS: each
/// browser gets its alarm encrypted to its subscription with VAPID for the double's origin,
/// a gone subscription is switched off, a 429 is retried not before its `Retry-After`, and
/// no key or token reaches the log.
@Suite(.serialized) struct WebPushProcessTests {
  static let subject = "mailto:ops@mowdeck.example"

  struct Stack {
    let db: TestDatabase
    let sandbox: WebPushSandboxHarness
    let environment: [String: String]

    init() async throws {
      db = try await TestDatabase.make()
      let record = FileManager.default.temporaryDirectory.appendingPathComponent(
        "webpush-\(UUID()).jsonl")
      sandbox = try await WebPushSandboxHarness.start(record: record)
      var environment = try WorkerProcess.environment(
        database: db, subjectPrefix: uniqueSubjectPrefix())
      environment["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"] =
        sandbox.pki.appendingPathComponent("apns-key.p8").path
      environment["MOWDECK_NOTIFICATIONS_WEBPUSH_SUBJECT"] = WebPushProcessTests.subject
      environment["MOWDECK_NOTIFICATIONS_WEBPUSH_CA_FILE"] = sandbox.caFile
      environment["MOWDECK_METRICS_LISTEN"] = "127.0.0.1:0"
      self.environment = environment
      try await Directory(pool: db.pool).addUser(id: "u-1", name: "Owner")
      try await Directory(pool: db.pool).grant(mowerID: "m-1", userID: "u-1")
    }

    /// Registers a browser subscribed at the double, answering `answer`.
    func browser(
      answer: Int? = nil, retryAfter: Int? = nil, location: String? = nil, delayMs: Int? = nil
    ) async throws -> WebPushSandboxHarness.Subscription {
      let subscription = try await sandbox.subscribe(
        answer: answer, retryAfter: retryAfter, location: location, delayMs: delayMs)
      try await Directory(pool: db.pool).addDevice(
        userID: "u-1",
        address: try .checkedWebPush(
          endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh,
          auth: subscription.keys.auth, allowedHosts: [sandbox.allowedHost]))
      return subscription
    }

    /// One pushed theft alarm queued to every device; returns its event id.
    func alarm() async throws -> UUID { try await db.queuePushedAlarm() }

    func stop() { sandbox.stop() }
  }

  @Test func eachBrowserGetsItsAlarmAndAGoneOneIsSwitchedOff() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    let good = try await stack.browser()
    let gone = try await stack.browser(answer: 410)
    let eventID = try await stack.alarm()
    let worker = try WorkerProcess("WebPushWorker", environment: stack.environment)
    defer { worker.stop() }
    let lines = try await stack.sandbox.waitForRecordLines(2, timeout: .seconds(30))
    let delivered = try #require(lines.first { $0.subscription == good.id })
    #expect(delivered.status == 201 && delivered.error == nil)
    #expect(delivered.vapidAud == stack.sandbox.origin)
    #expect(delivered.vapidSub == Self.subject)
    #expect(delivered.urgency == "high")
    #expect(delivered.topic?.count == 32)
    let message = try WireCoding.decode(
      WebPushMessage.self, from: Array((delivered.payload ?? "").utf8))
    #expect(message.title == "Robbie was lifted")
    #expect(message.imageURL == nil)
    #expect(lines.first { $0.subscription == gone.id }?.status == 410)

    try await eventually(timeout: .seconds(20), "both outcomes recorded") {
      try await stack.db.count(
        "SELECT count(*) AS n FROM deliveries WHERE state <> 'queued'") == 2
    }
    let story = try await EventLog().story(of: eventID, pool: stack.db.pool).map(\.type)
    #expect(story.filter { $0 == "delivery.sent" }.count == 1)
    #expect(story.filter { $0 == "delivery.failed" }.count == 1)
    #expect(story.filter { $0 == "device.deactivated" }.count == 1)
    #expect(
      try await stack.db.count(
        "SELECT count(*) AS n FROM devices WHERE token = \(gone.endpoint) AND NOT active") == 1)
    // Neither the subscriptions' keys nor a VAPID token is ever logged.
    for secret in [good.keys.p256dh, good.keys.auth, gone.keys.auth, "vapid t="] {
      #expect(!worker.log.contains(secret), "\(secret)")
    }
    try Self.expectNoVAPIDTokenLogged(worker.log, received: lines)
  }

  /// None of the JWTs the double received is in `log`, whole or in parts (its claims, its
  /// signature), nor anything that starts as a base64url JSON object (`eyJ`): a JWT cut
  /// short by the log's redaction would still be one logged.
  static func expectNoVAPIDTokenLogged(
    _ log: String, received lines: [WebPushSandboxHarness.RecordLine]
  ) throws {
    #expect(!log.isEmpty)
    let tokens = lines.compactMap(\.vapidJWT)
    #expect(!tokens.isEmpty, "the double recorded no VAPID JWT")
    for token in tokens {
      let parts = token.split(separator: ".").map(String.init)
      #expect(parts.count == 3)
      for secret in [token] + parts.dropFirst() {
        #expect(!log.contains(secret), "a VAPID JWT in the log: \(secret.prefix(12))…")
      }
    }
    #expect(!log.contains("eyJ"), "a base64url JSON object (a JWT?) in the log")
  }

  /// A push service answering with a redirect: the delivery fails for good, the
  /// subscription stays, and nothing reaches the address named in `Location`, whatever
  /// the kind (301, 302 and 303 would resend as a GET, 307 and 308 would post again).
  @Test func aRedirectIsNotFollowedAndFailsTheDelivery() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    let elsewhere = try ConnectionCounter()
    defer { elsewhere.stop() }
    let statuses = [301, 302, 303, 307, 308]
    for status in statuses {
      _ = try await stack.browser(
        answer: status, location: "https://127.0.0.1:\(elsewhere.port)/push/stolen")
    }
    let eventID = try await stack.alarm()
    let worker = try WorkerProcess("WebPushWorker", environment: stack.environment)
    defer { worker.stop() }
    let lines = try await stack.sandbox.waitForRecordLines(statuses.count, timeout: .seconds(30))
    #expect(lines.map(\.status).sorted() == statuses)
    // An outcome is written after its transfer ended, so a followed redirect is in by then
    // (and would have ended in a retry, the counter closing every connection).
    var outcomes: [RecordedEvent] = []
    try await eventually(timeout: .seconds(20), "an outcome for every redirected delivery") {
      outcomes = try await EventLog().story(of: eventID, pool: stack.db.pool)
        .filter { ["delivery.failed", "delivery.retry_scheduled"].contains($0.type) }
      return outcomes.count >= statuses.count
    }
    #expect(elsewhere.connections == 0, "the worker went where a redirect pointed")
    let failures = try outcomes.filter { $0.type == "delivery.failed" }
      .map { try $0.decode(DeliveryFailed.self) }
    #expect(failures.compactMap(\.status).sorted() == statuses)
    #expect(failures.allSatisfy { $0.reason == "redirect_not_followed" })
    #expect(
      try await stack.db.count("SELECT count(*) AS n FROM devices WHERE active")
        == statuses.count)
    #expect(
      try await stack.db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'failed'")
        == statuses.count)
  }

  @Test func aTooManyRequestsAnswerIsRetriedNotBeforeItsRetryAfter() async throws {
    let stack = try await Stack()
    defer { stack.stop() }
    _ = try await stack.browser(answer: 429, retryAfter: 90)
    let eventID = try await stack.alarm()
    let worker = try WorkerProcess("WebPushWorker", environment: stack.environment)
    defer { worker.stop() }
    _ = try await stack.sandbox.waitForRecordLines(1, timeout: .seconds(30))
    var retry: DeliveryRetryScheduled?
    try await eventually(timeout: .seconds(20), "the retry to be scheduled") {
      retry = try await EventLog().story(of: eventID, pool: stack.db.pool)
        .first { $0.type == "delivery.retry_scheduled" }
        .map { try $0.decode(DeliveryRetryScheduled.self) }
      return retry != nil
    }
    #expect(retry?.status == 429)
    #expect(retry?.platform == .webpush)
    #expect((retry?.retryInMilliseconds ?? 0) >= 90_000)
    #expect(
      try await stack.db.count(
        """
        SELECT count(*) AS n FROM deliveries
        WHERE state = 'queued' AND next_attempt_at > now() + interval '80 seconds'
        """) == 1)
  }

  @Test func aWorkerWithoutAVAPIDKeyRefusesToStartWithOneLine() async throws {
    let db = try await TestDatabase.make()
    let environment = try WorkerProcess.environment(
      database: db, subjectPrefix: uniqueSubjectPrefix())
    let result = try await runCommand("WebPushWorker", [], environment: environment)
    #expect(result.status == 2)
    #expect(
      result.output.contains(
        "WebPushWorker: configuration error: MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH is not set"
      ), "\(result.output)")
  }
}

/// A WebPushWorker killed with SIGKILL while its pushes wait for a slow push service: none
/// is lost, and each one sent twice is sent under the same `Topic`, which replaces rather
/// than doubles at the service.
@Suite struct WebPushKillTests {
  @Test func aWorkerKilledMidBatchLosesNothingAndRepeatsOnlyUnderTheSameTopic() async throws {
    let stack = try await WebPushProcessTests.Stack()
    defer { stack.stop() }
    var browsers: [WebPushSandboxHarness.Subscription] = []
    for _ in 0..<10 { browsers.append(try await stack.browser(delayMs: 3000)) }
    for _ in 0..<2 { _ = try await stack.alarm() }
    var environment = stack.environment
    // Longer than a batch takes at the slow service (20 answers of 3 s on 8 connections).
    environment["MOWDECK_APNS_LEASE_SECONDS"] = "12"
    let first = try WorkerProcess("WebPushWorker", environment: environment)
    defer { first.stop() }
    // Killed once it holds all 20 (their answers take 3 s each).
    try await stack.db.waitUntilFirstAttemptsLeased(20)
    try await Task.sleep(for: .milliseconds(500))
    first.kill()
    let second = try WorkerProcess("WebPushWorker", environment: environment)
    defer { second.stop() }
    try await eventually(timeout: .seconds(60), "every delivery to be sent") {
      try await stack.db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 20
    }
    let lines = try stack.sandbox.recordLines().filter { $0.status == 201 }
    let notifications = try await stack.db.pool.query(
      "SELECT DISTINCT notification_id FROM deliveries")
    #expect(notifications.count == 2)
    // Every browser got each alarm; a repeat carries the same Topic as the first sending.
    for browser in browsers {
      let topics = lines.filter { $0.subscription == browser.id }.compactMap(\.topic)
      #expect(Set(topics).count == 2, "\(browser.id): \(topics)")
    }
    #expect(lines.count >= 20)
  }
}

/// A WebPushWorker stopped with SIGTERM while its pushes wait at a slow push service takes
/// no new work, finishes the pushes it holds, and exits 0 within its grace: each sent once.
@Suite struct WebPushShutdownTests {
  @Test(.timeLimit(.minutes(2)))
  func aWorkerStoppedWithPushesInFlightSendsEachOnce() async throws {
    let stack = try await WebPushProcessTests.Stack()
    defer { stack.stop() }
    for _ in 0..<6 { _ = try await stack.browser(delayMs: 1000) }
    for _ in 0..<2 { _ = try await stack.alarm() }
    var environment = stack.environment
    let grace = 10
    environment["MOWDECK_SHUTDOWN_GRACE_SECONDS"] = String(grace)
    let worker = try WorkerProcess("WebPushWorker", environment: environment)
    defer { worker.stop() }
    // Every delivery in the worker's hand before the signal (one not yet claimed would
    // rightly be left for another worker).
    try await eventually(timeout: .seconds(20), "every push in flight") {
      try await stack.db.count(
        "SELECT count(*) AS n FROM deliveries WHERE state = 'queued' AND lease_token IS NULL")
        == 0
    }
    let started = ContinuousClock.now
    worker.signal(SIGTERM)
    let status = try await worker.wait(timeout: .seconds(grace + 5))
    #expect(status == 0)
    #expect(ContinuousClock.now - started < .seconds(grace))
    #expect(
      try await stack.db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 12)
    #expect(try stack.sandbox.recordLines().count == 12)
  }
}
