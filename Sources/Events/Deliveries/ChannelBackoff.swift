import FoundationEssentials
import Infrastructure

/// When a channel's message is tried again, and when it is no longer worth sending
/// (CONTRACT section 12: outcomes as for APNs, honouring `Retry-After`).
public enum ChannelBackoff {
  /// A message kept this long unsent is given up: an alarm that old no longer helps.
  public static let maximumAgeSeconds: Double = 30 * 60

  /// `Retry-After` as delta-seconds (what push services send); an HTTP date, a negative or
  /// absurd value is ignored and the backoff alone decides. At most an hour.
  public static func retryAfterSeconds(_ value: String) -> Double? {
    guard let seconds = Int(value.trimmingWhitespace()), seconds >= 0 else { return nil }
    return Double(min(seconds, 3600))
  }

  /// Exponential backoff with jitter: about 1, 2, 4, ... seconds, at most 5 minutes; never
  /// sooner than the service asked.
  public static func retryDelay(attempt: Int, notBefore: Double?) -> Double {
    let ceiling = min(300, Double(1 << min(max(0, attempt - 1), 20)))
    let backoff = Double.random(in: (ceiling / 2)...ceiling)
    return max(backoff, notBefore ?? 0)
  }

  /// The outcome to record for `answer`: a retry that would fall past the age limit fails
  /// instead.
  public static func outcome(
    of answer: ChannelAnswer, for delivery: ChannelDelivery, latencyMs: Int, hasImage: Bool,
    now: Date
  ) -> ChannelOutcome {
    switch answer {
    case .sent(let status):
      return .sent(status: status, latencyMs: latencyMs, hasImage: hasImage)
    case .retry(let status, let reason, let notBefore):
      let delay = retryDelay(attempt: delivery.attempt, notBefore: notBefore)
      if now.addingTimeInterval(delay).timeIntervalSince(delivery.createdAt) > maximumAgeSeconds {
        return .failed(
          status: status, reason: "too_old_to_matter (\(reason))", deactivateDevice: false)
      }
      return .retry(status: status, reason: reason, afterSeconds: delay)
    case .failed(let status, let reason, let deactivate):
      return .failed(status: status, reason: reason, deactivateDevice: deactivate)
    }
  }
}
