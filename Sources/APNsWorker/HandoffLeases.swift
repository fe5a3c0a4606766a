/// The leases of the handed-off deliveries this worker is pushing, by lease token (one per
/// decision): renewed while a push lasts longer than a moment, so their short first lease
/// (`DeliveryHandoff.leaseSeconds`) never runs out under a slow push (ADR 0016). Pushes that
/// end within a second, nearly all of them, cost no renewal.
actor HandoffLeases {
  private struct Held {
    var pushes: Int
    let since: ContinuousClock.Instant
  }

  private var held: [Int64: Held] = [:]

  func took(_ token: Int64, pushes: Int) {
    held[token] = Held(pushes: pushes, since: .now)
  }

  func ended(_ token: Int64) {
    guard var entry = held[token] else { return }
    entry.pushes -= 1
    held[token] = entry.pushes > 0 ? entry : nil
  }

  /// The tokens held for longer than `age`.
  func held(longerThan age: Duration) -> [Int64] {
    let now = ContinuousClock.now
    return held.filter { now - $0.value.since > age }.map(\.key)
  }
}
