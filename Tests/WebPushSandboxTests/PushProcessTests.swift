import Foundation
import Infrastructure
import TestSupport
import Testing

/// The sandbox as a process, pushed to as the WebPushWorker will: RFC 8291 bodies, RFC 8292
/// VAPID, over HTTPS with `HTTPClient` trusting the test CA.
@Suite struct PushProcessTests {
  static let subject = "mailto:ops@mowdeck.example"

  /// A sandbox of its own for one test, stopped at the end.
  static func withSandbox(
    _ body: (WebPushSandboxHarness, HTTPClient) async throws -> Void
  ) async throws {
    let record = FileManager.default.temporaryDirectory
      .appendingPathComponent("webpush-record-\(UUID().uuidString.prefix(8)).jsonl")
    let sandbox = try await WebPushSandboxHarness.start(record: record)
    let client = HTTPClient(caFile: sandbox.caFile, threadName: "webpush-test")
    defer {
      client.shutdown()
      sandbox.stop()
      try? FileManager.default.removeItem(at: record)
    }
    try await body(sandbox, client)
  }

  struct Push {
    var plaintext = Array(#"{"title":"Robbie needs help"}"#.utf8)
    var ttl: String? = "60"
    var urgency: String? = "high"
    var topic: String? = nil
    var contentEncoding: String? = "aes128gcm"
    /// Encrypt to these instead of the subscription's keys.
    var userAgentPublicKey: [UInt8]? = nil
    var authorization: String? = nil
  }

  static func send(
    _ push: Push, to subscription: WebPushSandboxHarness.Subscription, client: HTTPClient,
    vapid: VAPIDAuthorization? = nil
  ) async throws -> (status: Int, headers: [String: String]) {
    let body = try WebPushCipher.encrypt(
      plaintext: push.plaintext,
      userAgentPublicKey: try #require(push.userAgentPublicKey ?? subscription.userAgentPublicKey),
      authSecret: try #require(subscription.authSecret))
    var headers: [(String, String)] = []
    let vapid = try vapid ?? VAPIDAuthorization(key: ES256SigningKey.generate(), subject: subject)
    headers.append(
      (
        "Authorization",
        try push.authorization ?? vapid.headerValue(endpoint: subscription.endpoint, now: Date())
      ))
    if let ttl = push.ttl { headers.append(("TTL", ttl)) }
    if let urgency = push.urgency { headers.append(("Urgency", urgency)) }
    if let topic = push.topic { headers.append(("Topic", topic)) }
    if let encoding = push.contentEncoding { headers.append(("Content-Encoding", encoding)) }
    headers.append(("Content-Type", "application/octet-stream"))
    let result = await client.send(
      HTTPClientRequest(
        url: subscription.endpoint, headers: headers, body: body, timeoutSeconds: 10))
    guard case .response(let status, let responseHeaders, _) = result else {
      throw WebPushSandboxHarness.SubscribeFailed(description: "no answer to the push: \(result)")
    }
    return (status, responseHeaders)
  }

  @Test func aValidPushIsAnswered201AndRecordedWithItsPlaintext() async throws {
    try await Self.withSandbox { sandbox, client in
      let subscription = try await sandbox.subscribe()
      let answer = try await Self.send(
        Push(topic: "mower-42"), to: subscription, client: client)
      #expect(answer.status == 201)
      #expect(answer.headers["location"]?.hasPrefix("\(sandbox.origin)/message/") == true)
      let lines = try sandbox.recordLines()
      #expect(lines.count == 1)
      let line = try #require(lines.first)
      #expect(line.subscription == subscription.id)
      #expect(line.status == 201)
      #expect(line.error == nil)
      #expect(line.ttl == 60)
      #expect(line.urgency == "high")
      #expect(line.topic == "mower-42")
      #expect(line.vapidSub == Self.subject)
      #expect(line.vapidAud == sandbox.origin)
      #expect(line.payload == #"{"title":"Robbie needs help"}"#)
      #expect(line.payloadBytes > 86)
      // Nothing secret in the file.
      let text = try String(contentsOf: sandbox.record, encoding: .utf8)
      #expect(!text.contains(subscription.keys.auth))
      #expect(!text.contains(subscription.keys.p256dh))
    }
  }

  @Test func aSubscriptionIsWhatPushSubscriptionToJSONGives() async throws {
    try await Self.withSandbox { sandbox, client in
      let subscription = try await sandbox.subscribe()
      #expect(subscription.endpoint.hasPrefix("https://localhost:\(sandbox.port)/push/"))
      #expect(subscription.id.count >= 43)
      #expect(subscription.expirationTime == nil)
      #expect(subscription.userAgentPublicKey?.count == 65)
      #expect(subscription.userAgentPublicKey?.first == 0x04)
      #expect(subscription.authSecret?.count == 16)
      let other = try await sandbox.subscribe()
      #expect(other.id != subscription.id)
      #expect(other.keys != subscription.keys)
      // `expirationTime` is there, as null, as browsers write it.
      let raw = await client.send(
        HTTPClientRequest(
          url: "https://127.0.0.1:\(sandbox.port)/subscriptions", headers: [], body: [],
          timeoutSeconds: 10))
      guard case .response(201, _, let body) = raw else {
        Issue.record("POST /subscriptions: \(raw)")
        return
      }
      #expect(String(decoding: body, as: UTF8.self).contains(#""expirationTime":null"#))
    }
  }

  @Test func aWrongAudienceIs401AndRecorded() async throws {
    try await Self.withSandbox { sandbox, client in
      let subscription = try await sandbox.subscribe()
      let vapid = try VAPIDAuthorization(key: ES256SigningKey.generate(), subject: Self.subject)
      let elsewhere = try vapid.headerValue(
        endpoint: "https://push.example.net/push/\(subscription.id)", now: Date())
      let answer = try await Self.send(
        Push(authorization: elsewhere), to: subscription, client: client)
      #expect(answer.status == 401)
      let line = try #require(try sandbox.recordLines().first)
      #expect(line.status == 401)
      #expect(line.vapidAud == "https://push.example.net")
      #expect(line.error?.contains("aud") == true)
      #expect(line.payload == nil)
    }
  }

  @Test func aSignatureByAnotherKeyIs401AndRecorded() async throws {
    try await Self.withSandbox { sandbox, client in
      let subscription = try await sandbox.subscribe()
      let signer = try VAPIDAuthorization(key: ES256SigningKey.generate(), subject: Self.subject)
      let header = try signer.headerValue(endpoint: subscription.endpoint, now: Date())
      // The JWT of one key with the `k` of another.
      let otherKey = Base64URL.encode(try ES256SigningKey.generate().publicKeyUncompressed)
      let forged = try #require(header.split(separator: ", k=").first) + ", k=\(otherKey)"
      let answer = try await Self.send(
        Push(authorization: String(forged)), to: subscription, client: client)
      #expect(answer.status == 401)
      let line = try #require(try sandbox.recordLines().first)
      #expect(line.status == 401)
      #expect(line.error == VAPIDError.badSignature.description)
      #expect(line.vapidSub == nil)
    }
  }

  @Test func aPushWithoutTTLIs400AndRecorded() async throws {
    try await Self.withSandbox { sandbox, client in
      let subscription = try await sandbox.subscribe()
      let answer = try await Self.send(Push(ttl: nil), to: subscription, client: client)
      #expect(answer.status == 400)
      let line = try #require(try sandbox.recordLines().first)
      #expect(line.status == 400)
      #expect(line.error == "no TTL header")
      #expect(line.ttl == nil)
    }
  }

  @Test func badHeadersAre400AndRecorded() async throws {
    try await Self.withSandbox { sandbox, client in
      let subscription = try await sandbox.subscribe()
      let pushes = [
        Push(ttl: "-1"), Push(urgency: "urgent"), Push(topic: String(repeating: "a", count: 33)),
        Push(topic: "not/base64"), Push(contentEncoding: "aesgcm"), Push(contentEncoding: nil),
      ]
      for push in pushes {
        #expect(try await Self.send(push, to: subscription, client: client).status == 400)
      }
      let lines = try sandbox.recordLines()
      #expect(lines.map(\.status) == Array(repeating: 400, count: pushes.count))
      #expect(lines.allSatisfy { $0.error != nil && $0.payload == nil })
    }
  }

  @Test func aBodyEncryptedToAnotherKeyIs400AndRecorded() async throws {
    try await Self.withSandbox { sandbox, client in
      let subscription = try await sandbox.subscribe()
      let stranger = try P256KeyPair().publicKeyUncompressed
      let answer = try await Self.send(
        Push(userAgentPublicKey: stranger), to: subscription, client: client)
      #expect(answer.status == 400)
      let line = try #require(try sandbox.recordLines().first)
      #expect(line.status == 400)
      #expect(line.error?.hasPrefix("cannot decrypt") == true)
      #expect(line.payload == nil)
      #expect(line.vapidAud == sandbox.origin)
    }
  }

  @Test func aSubscriptionMadeToAnswer429SaysWhenToRetry() async throws {
    try await Self.withSandbox { sandbox, client in
      let subscription = try await sandbox.subscribe(answer: 429, retryAfter: 7)
      let answer = try await Self.send(Push(), to: subscription, client: client)
      #expect(answer.status == 429)
      #expect(answer.headers["retry-after"] == "7")
      let line = try #require(try sandbox.recordLines().first)
      #expect(line.status == 429)
      #expect(line.error == nil)
      #expect(line.payload == #"{"title":"Robbie needs help"}"#)
    }
  }

  @Test func configuredAnswersAreGivenToValidPushesOnly() async throws {
    try await Self.withSandbox { sandbox, client in
      for status in [404, 410, 413, 500, 503] {
        let subscription = try await sandbox.subscribe(answer: status)
        let answer = try await Self.send(Push(), to: subscription, client: client)
        #expect(answer.status == status)
        #expect(answer.headers["retry-after"] == nil)
      }
      // A push failing a check is refused for what it is, whatever the configured answer.
      let gone = try await sandbox.subscribe(answer: 410)
      #expect(try await Self.send(Push(ttl: nil), to: gone, client: client).status == 400)
    }
  }

  /// The double can play a push service that redirects, for the worker's test that it does
  /// not follow; `HTTPClient` hands the 3xx back as it is.
  @Test func aSubscriptionMadeToRedirectNamesItsLocation() async throws {
    try await Self.withSandbox { sandbox, client in
      let elsewhere = "https://127.0.0.1:9/elsewhere"
      for status in [301, 302, 303, 307, 308] {
        let subscription = try await sandbox.subscribe(answer: status, location: elsewhere)
        let answer = try await Self.send(Push(), to: subscription, client: client)
        #expect(answer.status == status)
        #expect(answer.headers["location"] == elsewhere)
      }
      let lines = try sandbox.recordLines()
      #expect(lines.map(\.status) == [301, 302, 303, 307, 308])
      #expect(lines.allSatisfy { $0.error == nil && $0.payload != nil })
    }
  }

  /// The JWT is recorded as it came, so that a test can look for it in the sender's logs.
  @Test func theVerifiedJWTIsRecordedAsReceived() async throws {
    try await Self.withSandbox { sandbox, client in
      let subscription = try await sandbox.subscribe()
      let vapid = try VAPIDAuthorization(key: ES256SigningKey.generate(), subject: Self.subject)
      let header = try vapid.headerValue(endpoint: subscription.endpoint, now: Date())
      let jwt = try #require(header.split(separator: ", k=").first?.dropFirst("vapid t=".count))
      #expect(
        try await Self.send(Push(authorization: header), to: subscription, client: client).status
          == 201)
      #expect(try sandbox.recordLines().first?.vapidJWT == String(jwt))
    }
  }

  @Test func aPushToAnUnknownSubscriptionIs404() async throws {
    try await Self.withSandbox { sandbox, client in
      let real = try await sandbox.subscribe()
      var unknown = real
      unknown.endpoint = "\(sandbox.origin)/push/nobody"
      let answer = try await Self.send(Push(), to: unknown, client: client)
      #expect(answer.status == 404)
      let line = try #require(try sandbox.recordLines().first)
      #expect(line.subscription == "nobody")
      #expect(line.status == 404)
      #expect(line.error == "unknown subscription")
    }
  }

  @Test func aSubscriptionBoundToAKeyRefusesOtherKeysWith403() async throws {
    try await Self.withSandbox { sandbox, client in
      let key = try ES256SigningKey.generate()
      let vapid = try VAPIDAuthorization(key: key, subject: Self.subject)
      let subscription = try await sandbox.subscribe(
        applicationServerKey: key.publicKeyUncompressed)
      #expect(
        try await Self.send(Push(), to: subscription, client: client, vapid: vapid).status == 201)
      #expect(try await Self.send(Push(), to: subscription, client: client).status == 403)
    }
  }

  @Test func aBadSubscriptionRequestIs400() async throws {
    try await Self.withSandbox { sandbox, _ in
      await #expect(throws: WebPushSandboxHarness.SubscribeFailed.self) {
        try await sandbox.subscribe(answer: 200)
      }
      await #expect(throws: WebPushSandboxHarness.SubscribeFailed.self) {
        try await sandbox.subscribe(answer: 201, retryAfter: 5)
      }
      await #expect(throws: WebPushSandboxHarness.SubscribeFailed.self) {
        try await sandbox.subscribe(answer: 307)
      }
      await #expect(throws: WebPushSandboxHarness.SubscribeFailed.self) {
        try await sandbox.subscribe(answer: 410, location: "https://127.0.0.1:9/")
      }
      await #expect(throws: WebPushSandboxHarness.SubscribeFailed.self) {
        try await sandbox.subscribe(answer: 308, location: "file:///etc/passwd")
      }
    }
  }
}
