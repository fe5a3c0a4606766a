import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// The per-client budget of forged and expired URLs behind a reverse proxy (issue 26): the
/// proxy's `X-Forwarded-For` names the client only when the proxy is trusted, and a client
/// cannot pick its own budget by writing the header itself. Real requests from 127.0.0.1,
/// which plays the proxy when trusted.
@Suite struct TrustedProxyTests {
  /// The per-client budget of URLs answered from the URL alone, per minute (the default).
  static let budget = 40

  /// A forged URL: answered 404 from the URL alone, drawing on the client's budget.
  private func forged(_ fixture: ServeFixture) -> String {
    fixture.pushTarget(UUID(), signer: ImageURLSigner(key: Array("not-the-key".utf8)))
  }

  /// The statuses of `count` forged requests, the n-th sent with `header(n)`.
  private func statuses(
    _ fixture: ServeFixture, _ count: Int, header: (Int) -> String?
  ) async throws -> [Int] {
    var statuses: [Int] = []
    for index in 0..<count {
      let headers = header(index).map { ["X-Forwarded-For": $0] } ?? [:]
      statuses.append(try await fixture.get(forged(fixture), headers: headers).status)
    }
    return statuses
  }

  @Test func aForgedHeaderFromAnUntrustedPeerIsIgnored() async throws {
    try await ServeFixture.with { fixture in
      // A new address in every request: if the header counted, none would ever be refused.
      let answers = try await statuses(fixture, Self.budget + 1) { "198.51.100.\($0 + 1)" }
      #expect(answers.prefix(Self.budget).allSatisfy { $0 == 404 })
      #expect(answers.last == 429)
      #expect(try await fixture.get(forged(fixture)).status == 429)
    }
  }

  @Test func behindATrustedProxyTwoClientsHaveTwoBudgets() async throws {
    try await ServeFixture.with(["MOWDECK_NOTIFICATIONS_TRUSTED_PROXIES": "127.0.0.1"]) {
      fixture in
      let first = try await statuses(fixture, Self.budget + 1) { _ in "198.51.100.1" }
      #expect(first.prefix(Self.budget).allSatisfy { $0 == 404 })
      #expect(first.last == 429)
      // Another phone behind the same proxy still has its whole budget.
      let second = try await statuses(fixture, Self.budget) { _ in "198.51.100.2" }
      #expect(second.allSatisfy { $0 == 404 })
      // And the proxy's own requests (a health probe, say) have theirs.
      #expect(try await fixture.get(forged(fixture)).status == 404)
    }
  }

  @Test func aSpoofedLeftMostEntryIsNotTheClient() async throws {
    try await ServeFixture.with([
      "MOWDECK_NOTIFICATIONS_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8"
    ]) { fixture in
      // The client writes a different address each time; the outer proxy appends the
      // client's real one, the inner proxy (10.1.2.3) its own.
      let answers = try await statuses(fixture, Self.budget + 1) {
        "192.0.2.\($0 + 1), 203.0.113.50, 10.1.2.3"
      }
      #expect(answers.prefix(Self.budget).allSatisfy { $0 == 404 })
      #expect(answers.last == 429)
      // The spoofed addresses were never charged: one of them, as a real client, is served.
      let spoofed = try await fixture.get(
        forged(fixture), headers: ["X-Forwarded-For": "192.0.2.1, 10.1.2.3"])
      #expect(spoofed.status == 404)
    }
  }
}
