import FoundationEssentials
import Synchronization

/// The one clock. Every component takes it as a parameter, so tests fix time instead of
/// sleeping; decisions about alarms use the alarm's own time, not this one.
public protocol WallClock: Sendable {
  func now() -> Date
}

public struct SystemClock: WallClock {
  public init() {}
  public func now() -> Date { Date() }
}

/// A clock tests set and advance by hand.
public final class ManualClock: WallClock {
  private let current: Mutex<Date>

  public init(_ start: Date) { current = Mutex(start) }

  public func now() -> Date { current.withLock { $0 } }

  public func advance(by seconds: TimeInterval) {
    current.withLock { $0 = $0.addingTimeInterval(seconds) }
  }

  public func set(_ date: Date) { current.withLock { $0 = date } }
}

extension Duration {
  /// The duration in seconds, for metrics, events and benchmark tables.
  public var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
