import FoundationEssentials
import Infrastructure

/// What a push service's answer means (RFC 8030 section 5, and the contract's outcomes):
/// - 201 (and any 2xx): sent;
/// - 404 and 410: the subscription is gone, the device is switched off;
/// - 429, 5xx and no answer at all: retried with backoff, after `Retry-After` when given;
/// - any other 4xx (400 a malformed request, 401/403 a VAPID the service refuses, 413 too
///   large): failed for good, for this message.
enum WebPushPolicy {
  enum Action: Sendable, Equatable {
    case sent(status: Int)
    case retry(status: Int?, reason: String, notBeforeSeconds: Double?)
    case failed(status: Int, reason: String, deactivateDevice: Bool)

    var label: String {
      switch self {
      case .sent: return "sent"
      case .retry: return "retry"
      case .failed(_, _, true): return "deactivated"
      case .failed: return "failed"
      }
    }
  }

  /// A message kept this long unsent is given up: an alarm that old no longer helps.
  static let maximumAgeSeconds: Double = 30 * 60

  static func classify(_ result: HTTPClientResult) -> Action {
    switch result {
    case .failure(let reason):
      return .retry(status: nil, reason: "network: \(reason)", notBeforeSeconds: nil)
    case .response(let status, let headers, _):
      switch status {
      case 200..<300: return .sent(status: status)
      case 404, 410:
        return .failed(status: status, reason: "subscription_gone", deactivateDevice: true)
      case 429, 500..<600:
        return .retry(
          status: status, reason: status == 429 ? "too_many_requests" : "push_service_error",
          notBeforeSeconds: headers["retry-after"].flatMap(retryAfterSeconds))
      case 413:
        return .failed(status: status, reason: "payload_too_large", deactivateDevice: false)
      case 401, 403:
        return .failed(status: status, reason: "vapid_refused", deactivateDevice: false)
      default:
        return .failed(status: status, reason: "refused", deactivateDevice: false)
      }
    }
  }

  /// `Retry-After` as delta-seconds (what push services send); an HTTP date, a negative or
  /// absurd value is ignored and the backoff alone decides. At most an hour.
  static func retryAfterSeconds(_ value: String) -> Double? {
    guard let seconds = Int(value.trimmingWhitespace()), seconds >= 0 else { return nil }
    return Double(min(seconds, 3600))
  }

  /// Exponential backoff with jitter: about 1, 2, 4, ... seconds, at most 5 minutes; never
  /// sooner than the service asked.
  static func retryDelay(attempt: Int, notBefore: Double?) -> Double {
    let ceiling = min(300, Double(1 << min(max(0, attempt - 1), 20)))
    let backoff = Double.random(in: (ceiling / 2)...ceiling)
    return max(backoff, notBefore ?? 0)
  }
}
