import Foundation
import Infrastructure
import TestSupport
import Testing

/// The send route: the bearer, the project and the message are checked as FCM checks them,
/// then each registration token gets the answer programmed for it, exactly as FCM writes
/// it.
@Suite struct SendTests {
  @Test func aValidMessageIsSentNamedAndRecorded() async throws {
    try await SandboxClient.with { client in
      let bearer = try await client.accessToken()
      let token = try await client.sandbox.makeToken()
      let answer = try await client.send(
        SandboxClient.message(to: token), authorization: "Bearer \(bearer)")
      #expect(answer.status == 200)
      guard case .object(let fields)? = answer.json, case .string(let name)? = fields["name"]
      else {
        Issue.record("no name: \(answer.text)")
        return
      }
      #expect(fields.count == 1)
      #expect(name.hasPrefix("projects/\(FCMSandboxHarness.projectID)/messages/0:"))
      let line = try #require(try client.sandbox.recordLines().last)
      #expect(line.route == "send")
      #expect(line.status == 200)
      #expect(line.error == nil)
      #expect(line.name == name)
      #expect(line.accessToken == bearer)
      #expect(line.project == FCMSandboxHarness.projectID)
      #expect(line.registrationToken == token)
      guard case .object(let message)? = line.message else {
        Issue.record("no message recorded")
        return
      }
      #expect(message["token"] == .string(token))
      #expect(
        message["data"]
          == .object([
            "notification_id": .string("0123456789abcdef0123456789abcdef"),
            "kind": .string("error"),
          ]))
    }
  }

  @Test func withoutAValidBearerASendIs401() async throws {
    try await SandboxClient.with { client in
      let message = SandboxClient.message(to: try await client.sandbox.makeToken())
      for (authorization, reason) in [
        (nil, "CREDENTIALS_MISSING"), ("Basic abc", "CREDENTIALS_MISSING"),
        ("Bearer ya29.never-granted", "ACCESS_TOKEN_TYPE_UNSUPPORTED"),
      ] {
        let answer = try await client.send(message, authorization: authorization)
        #expect(answer.status == 401)
        guard case .object(let top)? = answer.json, case .object(let error)? = top["error"]
        else {
          Issue.record("not a Google error: \(answer.text)")
          continue
        }
        #expect(error["code"] == .integer(401))
        #expect(error["status"] == .string("UNAUTHENTICATED"))
        #expect(answer.text.contains(reason))
      }
      let bearer = try await client.accessToken()
      #expect(try await client.sandbox.expireAccessTokens() == 1)
      let expired = try await client.send(message, authorization: "Bearer \(bearer)")
      #expect(expired.status == 401)
      #expect(expired.text.contains("ACCESS_TOKEN_EXPIRED"))
      let lines = try client.sandbox.recordLines().filter { $0.route == "send" }
      #expect(lines.map(\.status) == [401, 401, 401, 401])
      #expect(lines.allSatisfy { $0.error == "UNAUTHENTICATED" && $0.message == nil })
    }
  }

  @Test func anotherProjectIs403() async throws {
    try await SandboxClient.with { client in
      let bearer = try await client.accessToken()
      let answer = try await client.send(
        SandboxClient.message(to: try await client.sandbox.makeToken()),
        authorization: "Bearer \(bearer)", project: "someone-elses")
      #expect(answer.status == 403)
      #expect(answer.text.contains(#""status":"PERMISSION_DENIED""#))
    }
  }

  /// Each documented error, its status and its body to the byte (as JSON).
  @Test(arguments: [
    ("UNREGISTERED", 404, "NOT_FOUND", "Requested entity was not found."),
    (
      "INVALID_ARGUMENT", 400, "INVALID_ARGUMENT",
      "The registration token is not a valid FCM registration token"
    ),
    ("SENDER_ID_MISMATCH", 403, "PERMISSION_DENIED", "SenderId mismatch"),
    ("QUOTA_EXCEEDED", 429, "RESOURCE_EXHAUSTED", "Quota exceeded for sending messages."),
    ("UNAVAILABLE", 503, "UNAVAILABLE", "The service is currently unavailable."),
    ("INTERNAL", 500, "INTERNAL", "Internal error encountered."),
    ("THIRD_PARTY_AUTH_ERROR", 401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service"),
  ])
  func eachProgrammedErrorIsAnsweredAsFCMDocumentsIt(
    code: String, status: Int, googleStatus: String, message: String
  ) async throws {
    try await SandboxClient.with { client in
      let bearer = try await client.accessToken()
      let token = try await client.sandbox.makeToken(answer: code)
      let answer = try await client.send(
        SandboxClient.message(to: token), authorization: "Bearer \(bearer)")
      #expect(answer.status == status)
      #expect(answer.headers["content-type"] == "application/json")
      #expect(answer.headers["retry-after"] == nil)
      let expected = """
        {"error":{"code":\(status),"details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\(code)"}],"message":"\(message)","status":"\(googleStatus)"}}
        """
      #expect(answer.text == expected)
      let line = try #require(try client.sandbox.recordLines().last)
      #expect(line.status == status)
      #expect(line.error == code)
      #expect(line.registrationToken == token)
    }
  }

  @Test func retryAfterGoesWithQuotaAndUnavailable() async throws {
    try await SandboxClient.with { client in
      let bearer = try await client.accessToken()
      for (code, seconds) in [("QUOTA_EXCEEDED", 30), ("UNAVAILABLE", 5)] {
        let token = try await client.sandbox.makeToken(answer: code, retryAfter: seconds)
        let answer = try await client.send(
          SandboxClient.message(to: token), authorization: "Bearer \(bearer)")
        #expect(answer.headers["retry-after"] == String(seconds))
      }
      await #expect(throws: FCMSandboxHarness.ControlFailed.self) {
        try await client.sandbox.makeToken(answer: "UNREGISTERED", retryAfter: 5)
      }
      await #expect(throws: FCMSandboxHarness.ControlFailed.self) {
        try await client.sandbox.makeToken(answer: "GONE")
      }
    }
  }

  @Test func unknownTokensAreUnregisteredUnlessAnyTokenIsAccepted() async throws {
    let message = SandboxClient.message(to: "dGhpcyBpcyBub3QgcmVhbA:APA91bNotMadeHere")
    try await SandboxClient.with { client in
      let answer = try await client.send(
        message, authorization: "Bearer \(try await client.accessToken())")
      #expect(answer.status == 404)
      #expect(answer.text.contains(#""errorCode":"UNREGISTERED""#))
    }
    try await SandboxClient.with(acceptAnyToken: true) { client in
      let answer = try await client.send(
        message, authorization: "Bearer \(try await client.accessToken())")
      #expect(answer.status == 200)
    }
  }

  @Test func aDelayedTokenIsAnsweredLate() async throws {
    try await SandboxClient.with { client in
      let bearer = try await client.accessToken()
      let token = try await client.sandbox.makeToken(delayMs: 400)
      let started = ContinuousClock.now
      let answer = try await client.send(
        SandboxClient.message(to: token), authorization: "Bearer \(bearer)")
      #expect(answer.status == 200)
      #expect(ContinuousClock.now - started >= .milliseconds(400))
    }
  }

  @Test func malformedMessagesAre400NamingTheField() async throws {
    try await SandboxClient.with { client in
      let bearer = "Bearer \(try await client.accessToken())"
      let token = try await client.sandbox.makeToken()
      let bad = [
        (
          #"{"message":{"token":"\#(token)","notification":{"titel":"x"}}}"#, "message.notification"
        ),
        (#"{"message":{"token":"\#(token)","data":{"n":1}}}"#, "message.data[0].value"),
        (#"{"message":{"token":"\#(token)","android":{"ttl":"30m"}}}"#, "message.android.ttl"),
      ]
      for (body, field) in bad {
        let answer = try await client.send(body, authorization: bearer)
        #expect(answer.status == 400)
        #expect(answer.text.contains("google.rpc.BadRequest"))
        #expect(answer.text.contains(#""field":"\#(field)""#), "\(answer.text)")
      }
      let badToken = try await client.send(
        #"{"message":{"token":"has spaces"}}"#, authorization: bearer)
      #expect(badToken.status == 400)
      #expect(badToken.text.contains(#""errorCode":"INVALID_ARGUMENT""#))
      let lines = try client.sandbox.recordLines().filter { $0.route == "send" }
      #expect(
        lines.map(\.error) == [
          "INVALID_ARGUMENT", "INVALID_ARGUMENT", "INVALID_ARGUMENT", "INVALID_ARGUMENT",
        ])
    }
  }
}
