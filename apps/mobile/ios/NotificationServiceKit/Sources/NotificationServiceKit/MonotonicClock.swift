import Foundation

/// The real clock for `PushImage`: seconds since this value was made, on `ContinuousClock`, which
/// keeps counting while the device sleeps, so the 14 s window is 14 s of wall time.
public struct MonotonicClock: PushImageClock {
  private let origin: ContinuousClock.Instant

  public init() {
    origin = ContinuousClock.now
  }

  public func now() -> TimeInterval {
    let elapsed = ContinuousClock.now - origin
    let (seconds, attoseconds) = elapsed.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  public func sleep(until deadline: TimeInterval) async throws {
    try await Task.sleep(until: origin + .seconds(deadline), clock: .continuous)
  }
}
