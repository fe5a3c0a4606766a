import Foundation
import Infrastructure
import TestSupport
import Testing

/// The sandbox as a process, published to as the NtfyWorker will (headers, a text body)
/// over HTTPS with `HTTPClient` trusting the test CA, and polled as a phone would.
@Suite struct PublishProcessTests {
  static let token = "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2"

  /// A sandbox of its own for one test, stopped at the end.
  static func withSandbox(
    token: String? = nil, _ body: (NtfySandboxHarness) async throws -> Void
  ) async throws {
    let record = FileManager.default.temporaryDirectory
      .appendingPathComponent("ntfy-record-\(UUID().uuidString.prefix(8)).jsonl")
    let sandbox = try await NtfySandboxHarness.start(record: record, token: token)
    defer {
      sandbox.stop()
      try? FileManager.default.removeItem(at: record)
    }
    try await body(sandbox)
  }

  static func publish(
    _ sandbox: NtfySandboxHarness, topic: String = "mowdeck-topic",
    _ headers: [(String, String)] = [], body: String = "Someone lifted the mower."
  ) async throws -> (status: Int, headers: [String: String], body: [UInt8]) {
    let result = await sandbox.post("/\(topic)", headers: headers, body: Array(body.utf8))
    guard case .response(let status, let headers, let body) = result else {
      throw NtfySandboxHarness.ControlFailed(description: "no answer to the publish: \(result)")
    }
    return (status, headers, body)
  }

  static func error(_ body: [UInt8]) throws -> (code: Int, http: Int) {
    struct Body: Decodable {
      var code: Int
      var http: Int
    }
    let decoded = try WireCoding.decode(Body.self, from: body)
    return (decoded.code, decoded.http)
  }

  @Test func aPublishIsAnsweredWithItsMessageKeptAndRecorded() async throws {
    try await Self.withSandbox { sandbox in
      let answer = try await Self.publish(
        sandbox,
        [
          ("Title", "=?UTF-8?B?TcO8bGxlciB3YXMgbGlmdGVk?="), ("Priority", "5"),
          ("Tags", "rotating_light,mower_lifted"), ("Click", "https://owner.example/inbox"),
          ("X-Sequence-ID", "0f8e2f4c-1111-4222-8333-944455556666"),
        ])
      #expect(answer.status == 200)
      let message = try WireCoding.decode(NtfyMessageJSON.self, from: answer.body)
      #expect(message.id.count == 12)
      #expect(message.event == "message")
      #expect(message.topic == "mowdeck-topic")
      #expect(message.title == "Müller was lifted")
      #expect(message.message == "Someone lifted the mower.")
      #expect(message.priority == 5)
      #expect(message.tags == ["rotating_light", "mower_lifted"])
      #expect(message.click == "https://owner.example/inbox")
      #expect(message.sequenceID == "0f8e2f4c-1111-4222-8333-944455556666")
      #expect(message.attachment == nil)
      #expect(message.expires == message.time + 12 * 3600)
      #expect(try await sandbox.poll("mowdeck-topic") == [message])
      let line = try #require(try sandbox.records.lines().first)
      #expect(line.status == 200 && line.error == nil && line.id == message.id)
      #expect(line.title == "Müller was lifted" && line.priority == 5)
      #expect(line.sequenceID == message.sequenceID && line.token == nil)
      // Every key is written, null or not.
      let raw = try String(contentsOf: sandbox.record, encoding: .utf8)
      for key in [
        "time", "topic", "status", "error", "token", "id", "title", "message", "priority",
        "tags", "click", "attach", "filename", "sequence_id",
      ] {
        #expect(raw.contains("\"\(key)\":"), "\(key)")
      }
    }
  }

  @Test func aLaterMessageOfTheSameSequenceReplacesTheEarlierOnThePhone() async throws {
    try await Self.withSandbox { sandbox in
      let sequence = ("X-Sequence-ID", "n-1")
      _ = try await Self.publish(sandbox, [("Title", "Robbie was lifted"), sequence])
      _ = try await Self.publish(sandbox, [("Title", "Other"), ("X-Sequence-ID", "n-2")])
      let update = try await Self.publish(
        sandbox,
        [
          ("Title", "Robbie was lifted"), sequence,
          ("Attach", "https://owner.example/api/v1/notifications/push-images/n?e=1&s=2"),
          ("Filename", "n-1.jpg"),
        ])
      #expect(update.status == 200)
      // ntfy's cache keeps both messages of the sequence: a poll shows them all.
      let polled = try await sandbox.poll("mowdeck-topic")
      #expect(polled.map(\.sequenceID) == ["n-1", "n-2", "n-1"])
      // The phone shows the update in the first one's place.
      let shown = try await sandbox.view("mowdeck-topic")
      #expect(shown.map(\.sequenceID) == ["n-1", "n-2"])
      #expect(shown.first?.attachment?.name == "n-1.jpg")
      #expect(
        shown.first?.attachment?.url
          == "https://owner.example/api/v1/notifications/push-images/n?e=1&s=2")
    }
  }

  @Test func aTokenIsRequiredWhenTheServerHasOne() async throws {
    try await Self.withSandbox(token: Self.token) { sandbox in
      let none = try await Self.publish(sandbox)
      #expect(none.status == 403)
      #expect(try Self.error(none.body).code == 40301)
      let wrong = try await Self.publish(sandbox, [("Authorization", "Bearer tk_other")])
      #expect(wrong.status == 401)
      #expect(try Self.error(wrong.body).code == 40101)
      let right = try await Self.publish(sandbox, [("Authorization", "Bearer \(Self.token)")])
      #expect(right.status == 200)
      #expect(try sandbox.records.lines().map(\.token) == [nil, "tk_other", Self.token])
      #expect(try await sandbox.get("/mowdeck-topic/json?poll=1", token: nil).status == 403)
      #expect(try await sandbox.poll("mowdeck-topic").count == 1)
    }
  }

  @Test func publishesNtfyRefusesAreAnsweredWithItsErrors() async throws {
    try await Self.withSandbox { sandbox in
      let cases: [(headers: [(String, String)], body: String, code: Int)] = [
        ([("Priority", "9")], "x", 40007),
        ([("Attach", "ftp://example.com/a.jpg")], "x", 40013),
        ([("X-Sequence-ID", "a/b c")], "x", 40000),
        ([], String(repeating: "x", count: 4097), 40014),
      ]
      for item in cases {
        let answer = try await Self.publish(sandbox, item.headers, body: item.body)
        #expect(answer.status == 400, "\(item.headers)")
        #expect(try Self.error(answer.body).code == item.code, "\(item.headers)")
      }
      let badTopic = try await Self.publish(sandbox, topic: "a.b")
      #expect(try Self.error(badTopic.body).code == 40009)
      #expect(try await sandbox.poll("mowdeck-topic").isEmpty)
      #expect(try sandbox.records.lines().allSatisfy { $0.status == 400 && $0.error != nil })
      #expect(try await sandbox.get("/mowdeck-topic/json", token: nil).status == 400)
    }
  }

  @Test(
    arguments: [
      (429, 30, "42901"), (503, 7, nil), (502, nil, nil), (500, nil, "50001"), (401, nil, "40101"),
      (403, nil, "40301"), (413, nil, "41301"),
    ] as [(Int, Int?, String?)])
  func aProgrammedTopicAnswersItsStatusAndKeepsNothing(
    status: Int, retryAfter: Int?, code: String?
  ) async throws {
    try await Self.withSandbox { sandbox in
      try await sandbox.program(topic: "mowdeck-topic", answer: status, retryAfter: retryAfter)
      let answer = try await Self.publish(sandbox)
      #expect(answer.status == status)
      #expect(answer.headers["retry-after"] == retryAfter.map(String.init))
      if let code { #expect(String(decoding: answer.body, as: UTF8.self).contains(code)) }
      #expect(try await sandbox.poll("mowdeck-topic").isEmpty)
      #expect(try sandbox.records.lines().map(\.status) == [status])
      // Other topics answer as ever.
      #expect(try await Self.publish(sandbox, topic: "other").status == 200)
    }
  }

  @Test func aSlowTopicHoldsItsAnswers() async throws {
    try await Self.withSandbox { sandbox in
      try await sandbox.program(topic: "mowdeck-topic", delayMs: 600)
      let started = ContinuousClock.now
      #expect(try await Self.publish(sandbox).status == 200)
      #expect(ContinuousClock.now - started >= .milliseconds(600))
    }
  }

  @Test func badControlsAreRefused() async throws {
    try await Self.withSandbox { sandbox in
      for body in [
        #"{"answer":418}"#, #"{"answer":401,"retry_after":5}"#, #"{"delay_ms":-1}"#, "nope",
      ] {
        let result = await sandbox.post("/sandbox/topics/mowdeck-topic", body: Array(body.utf8))
        guard case .response(let status, _, _) = result else {
          Issue.record("no answer: \(result)")
          continue
        }
        #expect(status == 400, "\(body)")
      }
    }
  }
}
