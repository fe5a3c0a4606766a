import Events
import Foundation
import Infrastructure
import Synchronization
import TestSupport
import Testing

@testable import FCMWorker

/// The channel alone against the FCM sandbox (no database): the access token renewed once
/// on a 401, and every credential trouble turned into a wait, never a loop of requests.
@Suite struct FCMChannelTests {
  struct Bench {
    let sandbox: FCMSandboxHarness
    let channel: FCMChannel
    let metrics: Metrics
    let record: URL

    /// A sandbox, and a channel sending to `sendURL` (the sandbox's by default).
    static func start(sendURL: String? = nil, logger: Logger = TestServers.logger) async throws
      -> Bench
    {
      let record = FileManager.default.temporaryDirectory
        .appendingPathComponent("fcm-channel-\(UUID().uuidString.prefix(8)).jsonl")
      let sandbox = try await FCMSandboxHarness.start(record: record)
      let metrics = Metrics()
      let channel = FCMWorker.makeChannel(
        settings: FCMSettings(
          account: try sandbox.serviceAccount(), sendURL: sendURL ?? sandbox.sendURL),
        caFile: sandbox.caFile, logger: logger, clock: SystemClock(),
        metrics: metrics)
      return Bench(sandbox: sandbox, channel: channel, metrics: metrics, record: record)
    }

    func send(to token: String) async -> ChannelAnswer {
      let delivery = ChannelDelivery(
        deliveryID: UUID(), notificationID: UUID(), eventID: UUID(), leaseToken: 1, attempt: 1,
        createdAt: Date(), followup: false, platform: .fcm, deviceID: UUID(), address: token,
        webPushKeys: nil, deviceActive: true, imageID: nil, kind: "mower_lifted",
        alarmClass: "theft", mowerName: "Robbie", reason: nil)
      return await channel.attempt(delivery, imageURL: nil, now: Date())
    }

    func sends() throws -> [FCMRecordLine] {
      try sandbox.recordLines().filter { $0.route == "send" }
    }

    func tokenRequests() throws -> [FCMRecordLine] {
      try sandbox.recordLines().filter { $0.route == "token" }
    }

    func stop() {
      channel.shutdown()
      sandbox.stop()
      try? FileManager.default.removeItem(at: record)
    }
  }

  @Test func aMessageIsSentWithABearerTokenOfTheFirebaseScope() async throws {
    let bench = try await Bench.start()
    defer { bench.stop() }
    let token = try await bench.sandbox.makeToken()
    #expect(await bench.send(to: token) == .sent(status: 200))
    let send = try #require(try bench.sends().first)
    #expect(send.status == 200 && send.project == FCMSandboxHarness.projectID)
    #expect(send.registrationToken == token)
    #expect(
      try bench.sandbox.grants().first?.scope == OAuthAccessTokenSource.firebaseMessagingScope)
    #expect(bench.metrics.render().contains("mowdeck_fcm_access_token_grants_total 1.0"))
  }

  @Test func anAccessTokenExpiredEarlyIsRenewedOnceForManySends() async throws {
    let bench = try await Bench.start()
    defer { bench.stop() }
    let token = try await bench.sandbox.makeToken()
    #expect(await bench.send(to: token) == .sent(status: 200))
    try await bench.sandbox.expireAccessTokens()
    let answers = await withTaskGroup(of: ChannelAnswer.self) { group in
      for _ in 0..<20 { group.addTask { await bench.send(to: token) } }
      return await group.reduce(into: [ChannelAnswer]()) { $0.append($1) }
    }
    #expect(answers.allSatisfy { $0 == .sent(status: 200) })
    // One renewal however many sends met the expired token.
    #expect(try bench.sandbox.grants().count == 2)
    let sends = try bench.sends()
    #expect(sends.filter { $0.status == 200 }.count == 21)
    #expect(sends.filter { $0.status == 401 }.count <= 20)
    #expect(sends.allSatisfy { $0.status != 401 || $0.error == "UNAUTHENTICATED" })
    #expect(bench.metrics.counter(FCMMetrics.renewals) == 1)
  }

  @Test func manySendsAtOnceTravelAsStreamsOfOneHTTP2Connection() async throws {
    let bench = try await Bench.start()
    defer { bench.stop() }
    // Each answer is held 500 ms: one request at a time would take 20 s for the 40.
    let token = try await bench.sandbox.makeToken(delayMs: 500)
    let started = ContinuousClock.now
    let answers = await withTaskGroup(of: ChannelAnswer.self) { group in
      for _ in 0..<40 { group.addTask { await bench.send(to: token) } }
      return await group.reduce(into: [ChannelAnswer]()) { $0.append($1) }
    }
    let elapsed = ContinuousClock.now - started
    #expect(answers.count == 40 && answers.allSatisfy { $0 == .sent(status: 200) })
    let sends = try bench.sends()
    try #require(sends.count == 40)
    // The double numbers HTTP/2 connections and streams (over HTTP/1.1 it could not serve
    // at all): all 40 on one connection, each on a stream of its own, in flight together.
    let connections = Set(sends.map(\.connection))
    #expect(connections.count == 1 && !connections.contains(nil), "\(connections)")
    #expect(Set(sends.compactMap(\.stream)).count == 40)
    #expect(elapsed < .seconds(10), "\(elapsed)")
  }

  @Test func aThirdPartyAuthErrorWaitsWithoutRenewingTheToken() async throws {
    let bench = try await Bench.start()
    defer { bench.stop() }
    let token = try await bench.sandbox.makeToken(answer: "THIRD_PARTY_AUTH_ERROR")
    #expect(
      await bench.send(to: token)
        == .retry(
          status: 401, reason: "third_party_auth_error",
          notBeforeSeconds: FCMPolicy.credentialsRetrySeconds))
    #expect(try bench.sends().count == 1)
    #expect(try bench.sandbox.grants().count == 1)
    #expect(
      bench.metrics.counter(
        FCMMetrics.credentialsRefused, labels: ["reason": "third_party_auth_error"]) == 1)
  }

  @Test func aRefusedServiceAccountMakesMessagesWaitWithOneGrantRequest() async throws {
    let bench = try await Bench.start()
    defer { bench.stop() }
    try await bench.sandbox.setTokenEndpoint(answer: "INVALID_GRANT")
    let token = try await bench.sandbox.makeToken()
    for _ in 0..<5 {
      #expect(
        await bench.send(to: token)
          == .retry(status: nil, reason: "oauth_token_refused", notBeforeSeconds: 300))
    }
    #expect(try bench.tokenRequests().count == 1)
    #expect(try bench.sends().isEmpty)
    #expect(
      bench.metrics.counter(FCMMetrics.tokenFailures, labels: ["kind": "refused"]) == 5)
  }

  @Test func aTokenEndpointOutageIsRetriedWithTheUsualBackoff() async throws {
    let bench = try await Bench.start()
    defer { bench.stop() }
    try await bench.sandbox.setTokenEndpoint(answer: "UNAVAILABLE")
    let token = try await bench.sandbox.makeToken()
    #expect(
      await bench.send(to: token)
        == .retry(status: nil, reason: "oauth_token_unavailable", notBeforeSeconds: nil))
    #expect(try bench.sends().isEmpty)
  }

  @Test func noCredentialReachesTheLogWhateverHappens() async throws {
    let lines = LogLines()
    let bench = try await Bench.start(
      logger: Logger(component: "FCMWorker", minimumLevel: .debug) { lines.append($0) })
    defer { bench.stop() }
    let tokens = [
      try await bench.sandbox.makeToken(), try await bench.sandbox.makeToken(answer: "INTERNAL"),
      try await bench.sandbox.makeToken(answer: "THIRD_PARTY_AUTH_ERROR"),
    ]
    for token in tokens { _ = await bench.send(to: token) }
    try await bench.sandbox.expireAccessTokens()
    _ = await bench.send(to: tokens[0])
    try await bench.sandbox.setTokenEndpoint(answer: "UNAVAILABLE")
    try await bench.sandbox.expireAccessTokens()
    _ = await bench.send(to: tokens[0])
    try await bench.sandbox.setTokenEndpoint(answer: "INVALID_GRANT")
    try await Task.sleep(for: .seconds(2.1))  // the outage is remembered for 2 s
    _ = await bench.send(to: tokens[0])
    let log = lines.all.joined()
    #expect(log.contains("refused the service account") && log.contains("unavailable"))
    #expect(log.contains("third_party_auth_error"))
    let accessTokens = try bench.sandbox.grants().compactMap(\.accessToken)
    #expect(accessTokens.count == 2)
    let key = try FCMSandboxHarness.serviceAccountKey().privateKeyPEM.split(separator: "\n")
    for secret in accessTokens + tokens + key.dropFirst().dropLast().map(String.init) {
      #expect(!log.contains(secret), "\(secret.prefix(12))… in the log")
    }
  }

  @Test func credentialsStillRefusedAfterRenewalWaitInsteadOfLooping() async throws {
    // A send route that refuses every bearer: the sandbox's token endpoint grants, this
    // server answers 401 whatever it is sent.
    var router = HTTPRouter()
    let requests = Counter()
    router.add("POST", "/v1/projects/{project}/messages:send") { _ in
      requests.add()
      return .now(
        HTTPResponse(
          status: 401, headers: [("Content-Type", "application/json")],
          body: FCMPolicyTests.errorBody(401, "UNAUTHENTICATED", "Request had invalid credentials.")
        ))
    }
    let server = try HTTPServer.start(
      listen: "127.0.0.1:0", router: router, logger: TestServers.logger, metrics: Metrics(),
      options: HTTPServer.Options(threads: 1))
    let bench = try await Bench.start(
      sendURL: "http://127.0.0.1:\(server.port)/v1/projects/p/messages:send")
    defer { bench.stop() }
    #expect(
      await bench.send(to: "abc:APA91b")
        == .retry(
          status: 401, reason: "access_token_refused",
          notBeforeSeconds: FCMPolicy.credentialsRetrySeconds))
    #expect(requests.value == 2)
    #expect(try bench.sandbox.grants().count == 2)
    #expect(
      bench.metrics.counter(
        FCMMetrics.credentialsRefused, labels: ["reason": "access_token_refused"]) == 1)
    await server.stop()
  }
}

/// The lines a logger wrote.
final class LogLines: Sendable {
  private let lines = Mutex<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var all: [String] { lines.withLock { $0 } }
}

/// Requests a test server saw, counted from its threads.
final class Counter: Sendable {
  private let count = Mutex(0)
  func add() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}
