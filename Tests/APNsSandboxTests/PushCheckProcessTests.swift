import Foundation
import Testing

/// The request checks, through the real process over HTTP/2 and TLS with curl.
@Suite("Request checks over HTTP/2")
struct PushCheckProcessTests {
  @Test func aValidPushIsAcceptedAndRecorded() async throws {
    try await withSandbox { sandbox in
      let push = Push()
      let reply = try await Curl.send(push, to: sandbox)
      #expect(reply.exitCode == 0)
      #expect(reply.status == 200)
      #expect(reply.httpVersion == "2")
      #expect(reply.headers["apns-id"] == "123e4567-e89b-12d3-a456-4266554400a0")
      #expect(reply.body.isEmpty)

      let records = try sandbox.records()
      try #require(records.count == 1)
      let line = records[0]
      #expect(
        Set(line.keys) == [
          "time", "connection", "stream", "method", "path", "token", "headers", "jwt", "payload",
          "payload_bytes", "status", "reason", "timestamp", "apns_id", "behaviour", "outcome",
        ])
      #expect(line["token"]?.string == Push.token)
      #expect(line["status"]?.integer == 200)
      #expect(line["reason"]?.isNull == true)
      #expect(line["outcome"]?.string == "answered")
      #expect(line["apns_id"]?.string == "123e4567-e89b-12d3-a456-4266554400a0")
      #expect(line["payload_bytes"]?.integer == push.payload?.count)
      let headers = try #require(line["headers"]?.stringMembers)
      #expect(headers["apns-collapse-id"] == "5f0c8f3e-notification")
      #expect(headers["apns-id"] == "123e4567-e89b-12d3-a456-4266554400a0")
      #expect(headers["apns-topic"] == SandboxProcess.topic)
      #expect(headers["apns-push-type"] == "alert")
      #expect(headers["apns-priority"] == "10")
      #expect(headers["apns-expiration"] == "1795953600")
      #expect(headers["authorization"] == nil)
      let payload = try #require(line["payload"]?.object)
      #expect(payload["notification_id"]?.string == "5f0c8f3e")
      let jwt = try #require(line["jwt"]?.object)
      #expect(jwt["kid"]?.string == SandboxProcess.keyID)
      #expect(jwt["iss"]?.string == SandboxProcess.teamID)
      let issuedAt = try #require(jwt["iat"]?.integer)
      #expect(abs(issuedAt - Int(Date().timeIntervalSince1970)) < 60)
    }
  }

  @Test func theTokenSignatureIsNeverRecorded() async throws {
    try await withSandbox { sandbox in
      let token = try sandbox.providerToken()
      var push = Push()
      push.authorization = "bearer " + token
      _ = try await Curl.send(push, to: sandbox)
      let signature = try #require(token.split(separator: ".").last)
      #expect(!sandbox.recordText.isEmpty)
      #expect(!sandbox.recordText.contains(signature))
      #expect(!sandbox.log.contains(signature))
    }
  }

  @Test func aPushWithoutApnsIDGetsANewOne() async throws {
    try await withSandbox { sandbox in
      let reply = try await Curl.send(Push().with("apns-id", nil), to: sandbox)
      #expect(reply.status == 200)
      let id = try #require(reply.headers["apns-id"])
      #expect(UUID(uuidString: id) != nil)
      let line = try #require(try sandbox.records().first)
      #expect(line["apns_id"]?.string == id)
      #expect((line["headers"]?.stringMembers)?["apns-id"] == nil)
    }
  }

  static let headerProblems: [(String, Push, Int, String)] = [
    ("no apns-topic", Push().with("apns-topic", nil), 400, "MissingTopic"),
    ("another topic", Push().with("apns-topic", "app.other"), 400, "BadTopic"),
    ("no apns-push-type", Push().with("apns-push-type", nil), 400, "InvalidPushType"),
    ("background push type", Push().with("apns-push-type", "background"), 400, "InvalidPushType"),
    ("no apns-priority", Push().with("apns-priority", nil), 400, "BadPriority"),
    ("priority 5", Push().with("apns-priority", "5"), 400, "BadPriority"),
    ("no apns-expiration", Push().with("apns-expiration", nil), 400, "BadExpirationDate"),
    ("expiration not digits", Push().with("apns-expiration", "soon"), 400, "BadExpirationDate"),
    ("apns-id not a UUID", Push().with("apns-id", "not-a-uuid"), 400, "BadMessageId"),
    (
      "collapse id of 65 bytes", Push().with("apns-collapse-id", String(repeating: "c", count: 65)),
      400,
      "BadCollapseId"
    ),
    (
      "token of 63 hex digits", Push().changed { $0.token = String(repeating: "a", count: 63) },
      400, "BadDeviceToken"
    ),
    (
      "token not hex", Push().changed { $0.token = String(repeating: "g", count: 64) }, 400,
      "BadDeviceToken"
    ),
    ("no token", Push().changed { $0.token = "" }, 400, "MissingDeviceToken"),
    ("another path", Push().changed { $0.path = "/3/other/\(Push.token)" }, 404, "BadPath"),
    (
      "GET",
      Push().changed {
        $0.method = "GET"
        $0.payload = nil
      }, 405, "MethodNotAllowed"
    ),
    (
      "no authorization", Push().changed { $0.withoutAuthorization = true }, 403,
      "MissingProviderToken"
    ),
    (
      "not bearer", Push().changed { $0.authorization = "basic dXNlcjpwYXNz" }, 403,
      "InvalidProviderToken"
    ),
    ("empty payload", Push().changed { $0.payload = [] }, 400, "PayloadEmpty"),
    ("payload not JSON", Push().changed { $0.payload = Array("aps".utf8) }, 400, "BadPayload"),
    (
      "apns-topic twice",
      Push().changed { $0.headers.append(("apns-topic", SandboxProcess.topic)) }, 400,
      "DuplicateHeaders"
    ),
  ]

  @Test("each header problem gets its reason", arguments: headerProblems)
  func headerProblem(name: String, push: Push, status: Int, reason: String) async throws {
    try await withSandbox { sandbox in
      let reply = try await Curl.send(push, to: sandbox)
      #expect(reply.httpVersion == "2", "\(name)")
      #expect(reply.status == status, "\(name)")
      #expect(reply.json["reason"]?.string == reason, "\(name)")
      #expect(reply.headers["content-type"] == "application/json")
      #expect(reply.headers["apns-id"] != nil)
      let line = try #require(try sandbox.records().first, "\(name)")
      #expect(line["status"]?.integer == status)
      #expect(line["reason"]?.string == reason)
    }
  }

  @Test("a collapse id of exactly 64 bytes is fine")
  func collapseIDBoundary() async throws {
    try await withSandbox { sandbox in
      let reply = try await Curl.send(
        Push().with("apns-collapse-id", String(repeating: "c", count: 64)), to: sandbox)
      #expect(reply.status == 200)
    }
  }

  @Test("payload size limit", arguments: [(4096, 200, nil), (4097, 413, "PayloadTooLarge")])
  func payloadLimit(size: Int, status: Int, reason: String?) async throws {
    try await withSandbox { sandbox in
      var push = Push()
      let prefix = Array(#"{"aps":{"alert":"x"},"pad":""#.utf8)
      push.payload =
        prefix + Array(repeating: UInt8(ascii: "p"), count: size - prefix.count - 2)
        + Array(#""}"#.utf8)
      #expect(push.payload?.count == size)
      let reply = try await Curl.send(push, to: sandbox)
      #expect(reply.status == status)
      #expect(reply.json["reason"]?.string == reason)
      let line = try #require(try sandbox.records().first)
      #expect(line["payload_bytes"]?.integer == size)
    }
  }

  static let tokenProblems: [(String, Int64, String?, String)] = [
    ("signed by another key", 0, "stranger", "InvalidProviderToken"),
    ("issued 61 minutes ago", 3660, nil, "ExpiredProviderToken"),
    ("issued 5 minutes ahead", -300, nil, "InvalidProviderToken"),
    ("another key id", 0, "kid", "InvalidProviderToken"),
    ("another team", 0, "iss", "InvalidProviderToken"),
  ]

  @Test("provider token problems get 403 with their reason", arguments: tokenProblems)
  func tokenProblem(name: String, age: Int64, variant: String?, reason: String) async throws {
    try await withSandbox { sandbox in
      let token: String
      switch variant {
      case "stranger": token = try sandbox.providerToken(key: try await TestPKI.strangerKey())
      case "kid": token = try sandbox.providerToken(keyID: "OTHERKEYID")
      case "iss": token = try sandbox.providerToken(teamID: "OTHERTEAM")
      default: token = try sandbox.providerToken(age: age)
      }
      var push = Push()
      push.authorization = "bearer " + token
      let reply = try await Curl.send(push, to: sandbox)
      #expect(reply.status == 403, "\(name)")
      #expect(reply.json["reason"]?.string == reason, "\(name)")
    }
  }
}
