import Foundation
import Infrastructure
import Synchronization
import TestSupport
import Testing

@testable import ImageServeWorker

/// The web inbox's messages for a server that refuses or is gone: the real page and script
/// served by a stub whose inbox route answers what the test sets (the real route is not
/// rate-limited and answers 503 only when PostgreSQL is unreachable).
@Suite struct InboxPageFailureTests {
  static let status = "document.getElementById('status')"

  /// What the stub's inbox route answers, and when it was asked.
  final class Answers: Sendable {
    let answer = Mutex(HTTPResponse.plain(429).adding("Retry-After", "2"))
    let asked = Mutex<[Date]>([])
  }

  /// The page, and an inbox route answering `answers.answer`.
  struct Stub {
    let answers = Answers()
    let server: HTTPServer

    init() throws {
      var router = HTTPRouter()
      InboxPage.register(in: &router)
      let answers = self.answers
      router.get(InboxRoutes.listPattern) { _ in
        answers.asked.withLock { $0.append(Date()) }
        return .now(answers.answer.withLock { $0 })
      }
      server = try HTTPServer.start(
        listen: "127.0.0.1:0", router: router, logger: TestServers.logger, metrics: Metrics(),
        options: HTTPServer.Options(threads: 1))
    }
  }

  @Test(.enabled(if: HeadlessBrowser.chromium != nil, "chromium is not installed"))
  func tooManyRequestsBusyAndUnreachableEachHaveTheirOwnMessage() async throws {
    let stub = try Stub()
    let token = String(repeating: "ab", count: 32)
    let shown = "\(Self.status).dataset.state + '|' + \(Self.status).textContent"
    var steps: [InboxBrowser.Step] =
      [
        .open("http://127.0.0.1:\(stub.server.port)/inbox#token=\(token)"),
        .until("\(Self.status).dataset.state === 'rate-limited'"),
        .say("429", shown),
      ]
    steps += InboxBrowser.Step.screenshot("inbox-429.png")
    steps += [
      .until("\(Self.status).dataset.state === 'unavailable'"),
      .say("503", shown),
    ]
    steps += InboxBrowser.Step.screenshot("inbox-503.png")
    steps += [
      .until("\(Self.status).dataset.state === 'offline'"),
      .say("offline", shown),
    ]
    do {
      try await InboxBrowser.with(steps) { browser in
        // Counting down from Retry-After.
        let limited = try await browser.value("429")
        #expect(
          ["2", "1"].map { "rate-limited|Too many requests; retrying in \($0) s" }.contains(
            limited),
          "\(limited)")
        stub.answers.answer.withLock { $0 = .plain(503) }
        let seen503 = try await browser.value("503")
        #expect(seen503 == "unavailable|The server is busy or restarting; retrying…")
        // The page waited as long as Retry-After said before asking again.
        let asked = stub.answers.asked.withLock { $0 }
        #expect(asked.count == 2)
        if asked.count >= 2 { #expect(asked[1].timeIntervalSince(asked[0]) >= 1.9) }
        await stub.server.stop()
        let seenOffline = try await browser.value("offline")
        #expect(seenOffline == "offline|Cannot reach the server; retrying…")
      }
    } catch {
      await stub.server.stop()
      throw error
    }
    await stub.server.stop()
  }
}
