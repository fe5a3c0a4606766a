/// Exponential backoff with full jitter, for reconnecting to PostgreSQL or NATS and for
/// re-running a unit of work that failed for an outside reason.
public struct Backoff: Sendable {
  public let initial: Double
  public let maximum: Double
  public private(set) var attempt = 0

  public init(initial: Double = 0.1, maximum: Double = 5) {
    self.initial = initial
    self.maximum = maximum
  }

  /// The delay before the next attempt, in seconds; grows with each call.
  public mutating func next() -> Double {
    let ceiling = min(maximum, initial * Double(1 << min(attempt, 20)))
    attempt += 1
    return Double.random(in: (ceiling / 2)...ceiling)
  }

  public mutating func reset() { attempt = 0 }

  /// Sleeps for the next delay; returns false when the task was cancelled meanwhile.
  public mutating func wait() async -> Bool {
    let seconds = next()
    do {
      try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
      return true
    } catch {
      return false
    }
  }
}
