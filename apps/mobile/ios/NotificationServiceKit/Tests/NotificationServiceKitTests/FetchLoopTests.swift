import Foundation
import NotificationServiceKit
import Testing

@Suite("The fetch loop, on a fake server and virtual time")
struct FetchLoopTests {
  /// A server where the photo is uploaded at `readyAt` seconds: 404 before, the JPEG after.
  private static func photo(at readyAt: TimeInterval)
    -> @Sendable (TimeInterval, Int) -> FakeResponse
  {
    { start, _ in start >= readyAt ? .jpeg() : .status(404) }
  }

  @Test("A photo that appears at 3 s is attached at the fourth request")
  func photoAtThreeSeconds() async throws {
    let (outcome, requests) = try await run(script: Self.photo(at: 3))
    guard case .attached(let file, let bytes, let after, let attempts) = outcome else {
      Issue.record("expected an attachment, got \(outcome)")
      return
    }
    #expect(bytes == sampleJPEG.count)
    #expect(after == 3.05)
    #expect(attempts == 4)
    #expect(requests.map(\.start) == [0, 1, 2, 3])
    #expect(try Data(contentsOf: file) == sampleJPEG)
  }

  /// Requests start at 0, 1, ..., 13 s; the one at 13 s is the last, so a photo ready by 13 s
  /// is caught and one ready later (13.5 s, say) is not.
  @Test(
    "A photo near the window's end",
    arguments: [
      (12.9, true), (13.0, true), (13.01, false), (13.5, false), (14.0, false),
    ])
  func photoNearTheEnd(readyAt: TimeInterval, caught: Bool) async throws {
    let (outcome, requests) = try await run(script: Self.photo(at: readyAt))
    #expect(requests.count == 14)
    #expect(requests.last?.start == 13)
    if caught {
      guard case .attached(_, _, let after, let attempts) = outcome else {
        Issue.record("expected an attachment, got \(outcome)")
        return
      }
      #expect(after == 13.05)
      #expect(attempts == 14)
    } else {
      #expect(outcome == .gaveUp(.windowClosed(lastAnswer: .notFound), after: 13.05, attempts: 14))
    }
  }

  @Test("A photo that never appears: 14 requests, a second apart, then the text")
  func never() async throws {
    let (outcome, requests) = try await run { _, _ in .status(404) }
    #expect(outcome == .gaveUp(.windowClosed(lastAnswer: .notFound), after: 13.05, attempts: 14))
    #expect(requests.map(\.start) == (0...13).map(Double.init))
    #expect(requests.allSatisfy { $0.end <= 14 })
  }

  @Test("A server that hangs: each request times out, the loop ends by 14 s")
  func hangingServer() async throws {
    let (outcome, requests) = try await run { _, _ in .hang }
    #expect(outcome == .gaveUp(.windowClosed(lastAnswer: .timedOut), after: 14, attempts: 3))
    #expect(requests.map(\.start) == [0, 6, 12])
    #expect(requests.map(\.timeout) == [6, 6, 2])
    #expect(requests.map(\.end) == [6, 12, 14])
  }

  @Test("A slow server that answers 404 after 2.5 s is asked again at once")
  func slowNotFound() async throws {
    let (outcome, requests) = try await run { _, _ in .status(404, latency: 2.5) }
    #expect(requests.map(\.start) == [0, 2.5, 5, 7.5, 10, 12.5])
    #expect(requests.last?.timeout == 1.5)
    // The last request's answer would come at 15 s, so it times out at 14 s instead.
    #expect(outcome == .gaveUp(.windowClosed(lastAnswer: .timedOut), after: 14, attempts: 6))
  }

  @Test("A hang, then the photo")
  func hangThenPhoto() async throws {
    let (outcome, requests) = try await run { _, attempt in attempt == 1 ? .hang : .jpeg() }
    #expect(requests.map(\.start) == [0, 6])
    guard case .attached(_, _, let after, let attempts) = outcome else {
      Issue.record("expected an attachment, got \(outcome)")
      return
    }
    #expect(after == 6.05)
    #expect(attempts == 2)
  }

  @Test("Network errors are retried")
  func networkErrors() async throws {
    let (outcome, requests) = try await run { _, attempt in
      attempt < 3 ? .answer(.networkError("offline"), latency: 0.2) : .jpeg()
    }
    #expect(requests.map(\.start) == [0, 1, 2])
    guard case .attached(_, _, _, let attempts) = outcome else {
      Issue.record("expected an attachment, got \(outcome)")
      return
    }
    #expect(attempts == 3)
  }

  @Test("Network errors until the end say so")
  func networkErrorsToTheEnd() async throws {
    let (outcome, _) = try await run { _, _ in .answer(.networkError("offline"), latency: 0.1) }
    #expect(
      outcome
        == .gaveUp(.windowClosed(lastAnswer: .networkError("offline")), after: 13.1, attempts: 14))
  }

  @Test(
    "Answers that stop the loop at once",
    arguments: [
      (FakeResponse.status(410), PushImage.GiveUpReason.gone),
      (.status(429), .unexpectedStatus(429)),
      (.status(500), .unexpectedStatus(500)),
      (.status(301), .unexpectedStatus(301)),
      (.jpeg(Data("GIF89a".utf8)), .notJPEG),
      (.reply(200, "image/png", sampleJPEG), .wrongContentType("image/png")),
      (.reply(200, "image/jpeg", Data(), exceeded: true), .tooLarge),
      (.jpeg(sampleJPEG + [0x00]), .notJPEG),
    ])
  func stops(_ response: FakeResponse, _ reason: PushImage.GiveUpReason) async throws {
    // Two 404s first, to show the stop comes from the answer, not the start.
    let (outcome, requests) = try await run { _, attempt in attempt <= 2 ? .status(404) : response }
    #expect(outcome == .gaveUp(reason, after: 2.05, attempts: 3))
    #expect(requests.count == 3)
  }

  @Test("A body over the cap stops the loop")
  func overTheCap() async throws {
    let big = Data([0xFF, 0xD8, 0xFF]) + Data(repeating: 0, count: 2000) + Data([0xFF, 0xD9])
    let (outcome, _) = try await run(maxBytes: 1024) { _, _ in .jpeg(big) }
    #expect(outcome == .gaveUp(.tooLarge, after: 0.05, attempts: 1))
  }

  @Test("Cancelling the task (the extension's time running out) stops the loop")
  func cancelled() async throws {
    // The fetch runs in a task of its own, so the cancellation does not reach the test's task.
    let (outcome, requests) = try await Task {
      try await run { _, attempt in
        if attempt == 2 { withUnsafeCurrentTask { $0?.cancel() } }
        return .status(404)
      }
    }.value
    #expect(outcome == .gaveUp(.cancelled, after: 1.05, attempts: 2))
    #expect(requests.count == 2)
  }

  @Test("A custom plan is followed")
  func customPlan() async throws {
    let plan = PushImage.Plan(window: 3, interval: 0.5, requestTimeout: 1, minimumTimeout: 0.25)
    let (outcome, requests) = try await run(plan: plan) { _, _ in .status(404) }
    #expect(requests.map(\.start) == [0, 0.5, 1, 1.5, 2, 2.5])
    #expect(outcome == .gaveUp(.windowClosed(lastAnswer: .notFound), after: 2.55, attempts: 6))
  }
}
