import Foundation
import Testing

/// HTTP/2 and TLS as a client sees them: multiplexing, ALPN, shutdown.
@Suite("Connections")
struct ConnectionProcessTests {
  @Test func fiftyConcurrentStreamsOnOneConnectionAreAllAnswered() async throws {
    let slowToken = String(repeating: "51", count: 32)
    // 5 s: with the whole suite on two cores, 50 parallel curl requests have taken over 1 s.
    try await withSandbox(["--behaviour", "\(slowToken)=slow:5000"]) { sandbox in
      // One slow stream first, then 50 more at once: none waits for the slow one.
      var slow = Push()
      slow.token = slowToken
      let endpoint = sandbox.endpoint
      async let slowReplies = Curl.send(slow, to: endpoint)
      try await Task.sleep(for: .milliseconds(100))
      let replies = try await Curl.send(Push(), to: sandbox, count: 50, parallel: true)
      #expect(replies.count == 50)
      #expect(replies.allSatisfy { $0.status == 200 && $0.httpVersion == "2" })
      let slowReply = try #require(try await slowReplies.first)
      #expect(slowReply.status == 200, "curl: \(slowReply.exitCode) \(slowReply.error)")

      let records = try sandbox.records()
      try #require(records.count == 51)
      let fast = records.filter { $0["token"]?.string == Push.token }
      #expect(Set(fast.compactMap { $0["connection"]?.integer }).count == 1)
      #expect(Set(fast.compactMap { $0["stream"]?.integer }).count == 50)
      // The slow answer is the last line although its request came first.
      #expect(records.last?["token"]?.string == slowToken)
    }
  }

  @Test func aClientThatDoesNotOfferH2IsRefused() async throws {
    try await withSandbox { sandbox in
      let reply = try await Curl.send(Push(), to: sandbox, extra: ["--http1.1"])
      #expect(reply.exitCode != 0)
      #expect(reply.status == 0)
      #expect(try sandbox.records().isEmpty)
    }
  }

  @Test func aClientThatDoesNotTrustTheTestCAIsRefused() async throws {
    let strangerCA = try await TestPKI.strangerCA()
    try await withSandbox { sandbox in
      let reply = try await Curl.send(Push(), to: sandbox, extra: ["--cacert", strangerCA])
      #expect(reply.exitCode == 60)  // CURLE_PEER_FAILED_VERIFICATION
      #expect(try sandbox.records().isEmpty)
    }
  }

  @Test func sigtermStopsItCleanly() async throws {
    let sandbox = try await SandboxProcess.start()
    #expect(try await Curl.send(Push(), to: sandbox).status == 200)
    #expect(try await sandbox.stop() == 0)
    #expect(sandbox.log.contains("\"stopped\""))
  }
}
