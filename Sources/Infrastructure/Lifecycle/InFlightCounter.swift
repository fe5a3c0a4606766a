/// How many items a leased stage holds now (pushes in flight), for its claim loop's room,
/// its doorbell at half the cap, and its waiting gauge.
public actor InFlightCounter {
  public private(set) var value = 0

  public init() {}

  /// Returns the new value.
  @discardableResult
  public func add(_ delta: Int) -> Int {
    value += delta
    return value
  }
}
