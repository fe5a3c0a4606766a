import FoundationEssentials
import Infrastructure

/// How one attempt of a channel delivery ended, as the store records it.
public enum ChannelOutcome: DeliveryOutcome, Equatable {
  case sent(status: Int, latencyMs: Int, hasImage: Bool)
  case retry(status: Int?, reason: String, afterSeconds: Double)
  /// Failed for good; `deactivateDevice` when the platform says the address is gone (Web
  /// Push 404 or 410, FCM `UNREGISTERED`).
  case failed(status: Int?, reason: String, deactivateDevice: Bool)

  /// The delivery's state after this attempt: 'queued' again for a retry.
  public var state: String {
    switch self {
    case .sent: "sent"
    case .retry: "queued"
    case .failed: "failed"
    }
  }

  /// Seconds until the next attempt is due (a retry only).
  public var retryAfter: Double {
    if case .retry(_, _, let after) = self { return after }
    return 0
  }

  public var deactivatesDevice: Bool {
    if case .failed(_, _, true) = self { return true }
    return false
  }

  /// The fact this attempt adds to the log, with the delivery's platform and follow-up flag.
  public func event(for delivery: ChannelDelivery) -> NewEvent {
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

  /// The fact that the device's address is dead; nil unless this outcome switches it off.
  public func deactivationEvent(for delivery: ChannelDelivery) -> NewEvent? {
    guard case .failed(_, let reason, true) = self else { return nil }
    return NewEvent(
      DeviceDeactivated(
        deviceID: delivery.deviceID, tokenPrefix: delivery.tokenPrefix,
        platform: delivery.platform, reason: reason, apnsTimestamp: nil),
      correlationID: delivery.eventID)
  }
}
