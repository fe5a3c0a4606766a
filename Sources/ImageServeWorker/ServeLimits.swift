import Events
import FoundationEssentials
import Infrastructure
import Synchronization

/// The rate limits of one serving process (ADR 0008). Requests with a genuine, unexpired
/// signature are the only ones that reach PostgreSQL; they share a budget per notification
/// and one in total. Everything answered from the URL alone (forged, malformed, expired)
/// draws on a separate budget per client address, so no amount of it can take a genuine
/// request's place. The client address is the TCP peer's, or behind a trusted reverse
/// proxy the one it forwarded for (`MOWDECK_NOTIFICATIONS_TRUSTED_PROXIES`): otherwise
/// every phone behind the proxy would share one budget.
final class ServeLimits: Sendable {
  enum Verdict: Equatable, Sendable {
    case allowed
    /// Refused: answer 429 with `Retry-After` of this many whole seconds.
    case limited(retryAfter: Int)
  }

  private struct State {
    var perNotification: TokenBuckets<UUID>
    var total: TokenBuckets<Int>
    var perClient: TokenBuckets<ClientAddress>
  }

  private let state: Mutex<State>
  private let metrics: Metrics

  /// - Parameters:
  ///   - perNotification: genuine requests per notification per minute (40).
  ///   - total: genuine requests per minute for the whole process (600).
  ///   - unsignedPerClient: requests without a genuine, unexpired signature per client
  ///     address per minute. The worker uses the per-notification figure: a phone asking
  ///     for one photo never needs more, and a flood from one address stays its own.
  init(perNotification: Int, total: Int, unsignedPerClient: Int, metrics: Metrics) {
    state = Mutex(
      State(
        perNotification: TokenBuckets(limit: perNotification),
        total: TokenBuckets(limit: total, capacity: 1),
        // Fails closed when 65,536 addresses are all refilling: only unsigned requests
        // are refused then, never genuine ones.
        perClient: TokenBuckets(limit: unsignedPerClient, capacity: 65_536)))
    self.metrics = metrics
    metrics.describe(
      "mowdeck_image_rate_limited_total", type: "counter",
      help: "Push-image requests refused with 429, by the limit that refused them")
  }

  /// A request with a genuine signature for `notification`: takes from both of its
  /// budgets, or from neither.
  func admitGenuine(_ notification: UUID, now: Date) -> Verdict {
    let seconds = now.timeIntervalSince1970
    let (wait, limit) = state.withLock { state -> (Double, String) in
      let own = state.perNotification.wait(notification, now: seconds)
      let shared = state.total.wait(0, now: seconds)
      guard own == 0, shared == 0 else {
        return (max(own, shared), own > 0 ? "notification" : "total")
      }
      state.perNotification.take(notification, now: seconds)
      state.total.take(0, now: seconds)
      return (0, "")
    }
    return verdict(wait: wait, limit: limit)
  }

  /// A request answered from its URL alone, from `client`.
  func admitUnsigned(_ client: ClientAddress, now: Date) -> Verdict {
    let seconds = now.timeIntervalSince1970
    let wait = state.withLock { state -> Double in
      let wait = state.perClient.wait(client, now: seconds)
      guard wait == 0 else { return wait }
      return state.perClient.take(client, now: seconds) ? 0 : 60
    }
    return verdict(wait: wait, limit: "client")
  }

  private func verdict(wait: Double, limit: String) -> Verdict {
    guard wait > 0 else { return .allowed }
    metrics.increment("mowdeck_image_rate_limited_total", labels: ["limit": limit])
    return .limited(retryAfter: max(1, Int(wait.rounded(.up))))
  }
}
