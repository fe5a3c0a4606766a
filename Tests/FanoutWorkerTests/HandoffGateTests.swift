import Testing

@testable import FanoutWorker

/// The pause of the APNs handoffs after a refusal (ADR 0046), on explicit instants.
@Suite struct HandoffGateTests {
  @Test func openUntilARefusalThenShutForThePause() {
    let gate = HandoffGate(pause: .milliseconds(250))
    let t0 = ContinuousClock.now
    #expect(gate.isOpen(now: t0))
    gate.refused(now: t0)
    #expect(!gate.isOpen(now: t0))
    #expect(!gate.isOpen(now: t0 + .milliseconds(249)))
    #expect(gate.isOpen(now: t0 + .milliseconds(250)))
  }

  @Test func aLaterRefusalShutsItFromThen() {
    let gate = HandoffGate(pause: .milliseconds(250))
    let t0 = ContinuousClock.now
    gate.refused(now: t0)
    gate.refused(now: t0 + .milliseconds(200))
    #expect(!gate.isOpen(now: t0 + .milliseconds(300)))
    #expect(gate.isOpen(now: t0 + .milliseconds(450)))
  }
}
