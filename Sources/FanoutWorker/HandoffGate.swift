import Synchronization

/// Whether the next decisions offer their APNs deliveries to a worker (ADR 0016) or leave
/// them for the workers' claims (ADR 0046).
///
/// An offer the APNs stage refuses (every worker at its in-flight cap, none listening, no
/// answer in time) costs a NATS round trip, a release transaction and then the claim: the
/// deliveries are written, leased, unleased and leased again, exactly when the machine has
/// no time to spare. After a refusal the gate stays shut for `pause`, and the decisions of
/// that time write their APNs deliveries unleased, as the other platforms' are, for the
/// workers to claim in batches once they have room. The first decision after the pause
/// offers again, so a quiet pipeline is back to handoffs within `pause`.
final class HandoffGate: Sendable {
  let pause: Duration
  private let shutUntil = Mutex<ContinuousClock.Instant?>(nil)

  init(pause: Duration = .milliseconds(250)) {
    self.pause = pause
  }

  /// Whether a decision made now offers its APNs deliveries.
  func isOpen(now: ContinuousClock.Instant = .now) -> Bool {
    shutUntil.withLock { until in
      guard let shut = until else { return true }
      if now < shut { return false }
      until = nil
      return true
    }
  }

  /// An offer was refused: shut for `pause` from now.
  func refused(now: ContinuousClock.Instant = .now) {
    shutUntil.withLock { $0 = now + pause }
  }
}
