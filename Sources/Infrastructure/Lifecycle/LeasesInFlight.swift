/// The lease tokens a worker holds while their work runs, so that one statement can renew
/// them all: the photo requests (each its own token) and the handed-off pushes (one token
/// for a decision's deliveries, ADR 0016).
public actor LeasesInFlight {
  private struct Held {
    var items: Int
    let since: ContinuousClock.Instant
  }

  private var held: [Int64: Held] = [:]

  public init() {}

  /// Leases held (not items).
  public var count: Int { held.count }

  /// Holds `token` for `items` pieces of work; it is let go when all have ended.
  public func took(_ token: Int64, items: Int = 1) {
    held[token] = Held(items: items, since: .now)
  }

  public func ended(_ token: Int64) {
    guard var entry = held[token] else { return }
    entry.items -= 1
    held[token] = entry.items > 0 ? entry : nil
  }

  /// The tokens held for at least `age`.
  public func tokens(heldFor age: Duration = .zero) -> [Int64] {
    let now = ContinuousClock.now
    return held.filter { now - $0.value.since >= age }.map(\.key)
  }

  /// Until cancelled: every `period`, hands the tokens held for at least `age` to `renew`
  /// (one statement); a failure is logged and the next period tries again.
  public nonisolated func keepRenewing(
    every period: Duration, heldFor age: Duration = .zero, logger: Logger, what: String,
    renew: @escaping @Sendable ([Int64]) async throws -> Void
  ) async {
    while !Task.isCancelled {
      try? await Task.sleep(for: period)
      do {
        try await renew(await tokens(heldFor: age))
      } catch {
        logger.warning("renewing \(what) failed", ["error": error])
      }
    }
  }
}
