import Events
import FoundationEssentials
import Infrastructure

/// How one Web Push attempt ended, as the store records it.
enum WebPushOutcome: Sendable, Equatable {
  case sent(status: Int, latencyMs: Int, hasImage: Bool)
  case retry(status: Int?, reason: String, afterSeconds: Double)
  /// Failed for good; `deactivateDevice` on the push service's 404 or 410 (the subscription
  /// is gone).
  case failed(status: Int?, reason: String, deactivateDevice: Bool)

  var state: String {
    switch self {
    case .sent: return "sent"
    case .retry: return "queued"
    case .failed: return "failed"
    }
  }

  var retryAfter: Double {
    if case .retry(_, _, let after) = self { return after }
    return 0
  }

  func event(for delivery: WebPushDelivery) -> NewEvent {
    let attempt = delivery.deliveryAttempt
    switch self {
    case .sent(let status, let latency, let hasImage):
      return NewEvent(
        DeliverySent(
          attempt, apnsID: nil, status: status, latencyMilliseconds: latency, hasImage: hasImage),
        correlationID: delivery.eventID)
    case .retry(let status, let reason, let after):
      return NewEvent(
        DeliveryRetryScheduled(
          attempt, status: status, reason: reason, retryInMilliseconds: Int(after * 1000)),
        correlationID: delivery.eventID)
    case .failed(let status, let reason, _):
      return NewEvent(
        DeliveryFailed(attempt, status: status, reason: reason, apnsTimestamp: nil),
        correlationID: delivery.eventID)
    }
  }
}
