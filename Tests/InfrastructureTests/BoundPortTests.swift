import Infrastructure
import Testing

/// A route made before its server knew its port answers once the port is stored, not 503.
@Suite struct BoundPortTests {
  @Test func aReplyBeforeThePortIsKnownWaitsForIt() async throws {
    let port = BoundPort()
    let reply = port.whenKnown { .now(.plain(port.value == 4711 ? 404 : 500)) }
    guard case .later(let work) = reply else {
      Issue.record("a reply before the port is known must wait")
      return
    }
    let answer = Task { await work() }
    try await Task.sleep(for: .milliseconds(20))
    port.store(4711)
    #expect(await answer.value.status == 404)
    guard case .now(let known) = port.whenKnown({ .now(.plain(410)) }) else {
      Issue.record("a reply once the port is known goes at once")
      return
    }
    #expect(known.status == 410)
  }
}
