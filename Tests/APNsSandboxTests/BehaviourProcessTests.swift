import Foundation
import Testing

/// Behaviours chosen per token, through the real process over HTTP/2 and TLS with curl.
@Suite("Behaviours over HTTP/2")
struct BehaviourProcessTests {
  static let token = String(repeating: "be", count: 32)

  private func behaviour(_ spec: String) -> [String] { ["--behaviour", "\(Self.token)=\(spec)"] }

  private var push: Push {
    var push = Push()
    push.token = Self.token
    return push
  }

  static let statusBehaviours: [(String, Int, String, Int64?)] = [
    ("400", 400, "BadDeviceToken", nil),
    ("403", 403, "InvalidProviderToken", nil),
    ("403:ExpiredProviderToken", 403, "ExpiredProviderToken", nil),
    ("403:InvalidProviderToken", 403, "InvalidProviderToken", nil),
    ("410:1700000000000", 410, "Unregistered", 1_700_000_000_000),
    ("429", 429, "TooManyRequests", nil),
    ("500", 500, "InternalServerError", nil),
    ("503", 503, "ServiceUnavailable", nil),
  ]

  @Test("status behaviours answer as APNs would", arguments: statusBehaviours)
  func statusBehaviour(spec: String, status: Int, reason: String, timestamp: Int64?) async throws {
    try await withSandbox(behaviour(spec)) { sandbox in
      let reply = try await Curl.send(push, to: sandbox)
      #expect(reply.httpVersion == "2")
      #expect(reply.status == status)
      #expect(reply.json["reason"]?.string == reason)
      #expect(reply.json["timestamp"]?.integer.map(Int64.init) == timestamp)
      let line = try #require(try sandbox.records().first)
      #expect(line["status"]?.integer == status)
      #expect(line["reason"]?.string == reason)
      #expect(line["behaviour"]?.string == spec)
      // Other tokens are not affected.
      #expect(try await Curl.send(Push(), to: sandbox).status == 200)
    }
  }

  @Test func unregisteredWithoutATimestampSaysNow() async throws {
    try await withSandbox(behaviour("410")) { sandbox in
      let before = Int64(Date().timeIntervalSince1970 * 1000)
      let reply = try await Curl.send(push, to: sandbox)
      let after = Int64(Date().timeIntervalSince1970 * 1000)
      #expect(reply.status == 410)
      let timestamp = try #require(reply.json["timestamp"]?.integer.map(Int64.init))
      #expect((before - 1000...after).contains(timestamp))
    }
  }

  @Test func anInvalidRequestGetsItsOwnErrorNotTheBehaviour() async throws {
    try await withSandbox(behaviour("500x1")) { sandbox in
      let bad = try await Curl.send(push.with("apns-topic", "app.other"), to: sandbox)
      #expect(bad.status == 400)
      #expect(bad.json["reason"]?.string == "BadTopic")
      // The invalid request did not use up the counted behaviour.
      #expect(try await Curl.send(push, to: sandbox).status == 500)
    }
  }

  @Test func failTwiceThenSucceed() async throws {
    try await withSandbox(behaviour("500x2")) { sandbox in
      let replies = try await Curl.send(push, to: sandbox, count: 4)
      #expect(replies.map(\.status) == [500, 500, 200, 200])
      let records = try sandbox.records()
      #expect(records.map { $0["behaviour"]?.string } == ["500x2", "500x2", nil, nil])
    }
  }

  @Test func slowAnswerArrivesAfterItsDelay() async throws {
    try await withSandbox(behaviour("slow:600")) { sandbox in
      let started = ContinuousClock.now
      let reply = try await Curl.send(push, to: sandbox)
      let took = ContinuousClock.now - started
      #expect(reply.status == 200)
      #expect(took >= .milliseconds(600))
      #expect(took < .seconds(5))
    }
  }

  @Test func goawayAfterTheAnswerMakesTheClientReconnect() async throws {
    try await withSandbox(behaviour("goawayx1")) { sandbox in
      // Three transfers in one curl, one after another: without the GOAWAY all three would
      // share one connection.
      let replies = try await Curl.send(push, to: sandbox, count: 3)
      #expect(replies.map(\.status) == [200, 200, 200])
      #expect(replies.allSatisfy { $0.httpVersion == "2" })
      let connections = try sandbox.records().map { $0["connection"]?.integer }
      #expect(connections.count == 3)
      #expect(connections[0] != connections[1])
      #expect(connections[1] == connections[2])
    }
  }

  @Test func goawayInsteadOfTheAnswerRefusesTheStream() async throws {
    try await withSandbox(behaviour("goaway:insteadx1")) { sandbox in
      let refused = try await Curl.send(push, to: sandbox)
      // curl 7.88 reports a refused stream after GOAWAY as an HTTP/2 error (16) and does
      // not retry it by itself; a newer curl would. Either way no status arrived.
      #expect(refused.exitCode != 0)
      #expect(refused.status == 0)
      let retried = try await Curl.send(push, to: sandbox)
      #expect(retried.status == 200)
      let records = try sandbox.records()
      try #require(records.count == 2)
      #expect(records[0]["outcome"]?.string == "refused")
      #expect(records[0]["status"]?.isNull == true)
      #expect(records[1]["outcome"]?.string == "answered")
      #expect(records[0]["connection"]?.integer != records[1]["connection"]?.integer)
    }
  }

  /// Requests that reach the sandbox after it decided on a GOAWAY, on streams the GOAWAY
  /// excludes, are refused for the client: the sandbox must not answer, record or count
  /// them, or a counted behaviour is used up by a request whose answer nobody sees (the
  /// flaky `APNsProcessTests.theResponseMatrix`, 2026-12-02).
  @Test func requestsBeyondAGoawayAreNotHandled() async throws {
    try await withSandbox(behaviour("goaway")) { sandbox in
      let replies = try await Curl.send(push, to: sandbox, count: 20, parallel: true)
      let answered = try sandbox.records().filter { $0["outcome"]?.string == "answered" }
      let seen = replies.filter { $0.status == 200 }
      #expect(!seen.isEmpty)
      #expect(answered.count == seen.count, "answers recorded against answers curl saw")
    }
  }

  @Test func droppedConnectionIsAnErrorForTheClient() async throws {
    try await withSandbox(behaviour("dropx1")) { sandbox in
      let dropped = try await Curl.send(push, to: sandbox)
      #expect(dropped.exitCode != 0)
      #expect(dropped.status == 0)
      #expect(try await Curl.send(push, to: sandbox).status == 200)
      let records = try sandbox.records()
      #expect(records.map { $0["outcome"]?.string } == ["dropped", "answered"])
    }
  }

  @Test func behaviourFileIsReadAgainWhenItChanges() async throws {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("behaviours-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }
    func write(_ json: String) throws { try Data(json.utf8).write(to: file, options: .atomic) }
    try write("{}")
    try await withSandbox(["--behaviour-file", file.path]) { sandbox in
      #expect(try await Curl.send(push, to: sandbox).status == 200)
      try write(#"{"\#(Self.token)": "429"}"#)
      #expect(try await Curl.send(push, to: sandbox).status == 429)
      try write(#"{"\#(Self.token)": "500x1"}"#)
      #expect(try await Curl.send(push, to: sandbox, count: 2).map(\.status) == [500, 200])
      try write(#"{"*": "503"}"#)
      #expect(try await Curl.send(push, to: sandbox).status == 503)
      try FileManager.default.removeItem(at: file)
      #expect(try await Curl.send(push, to: sandbox).status == 200)
    }
  }
}
