import Events
import FoundationEssentials
import Glibc
import Infrastructure

/// What to do after one attempt (ADR 0009): the response matrix of issue 4 as a pure
/// function, tested at every row.
enum DeliveryAction: Sendable, Equatable {
  case sent(apnsID: String?)
  /// 429, 5xx, timeouts, connection failures: try again later.
  case retry(status: Int?, reason: String)
  /// 403 ExpiredProviderToken or InvalidProviderToken: sign a new JWT and try once more.
  case renewTokenAndRetry(reason: String)
  /// For good. `deactivateDevice` for BadDeviceToken, and Unregistered newer than the token
  /// (which `DeliveryStore.finish` checks again when it writes).
  case failed(status: Int?, reason: String, deactivateDevice: Bool, apnsTimestamp: Int64?)
}

extension DeliveryAction {
  /// A short name for metrics (`mowdeck_apns_responses_total{action}`): a dead token is
  /// `deactivated`, as on the other platforms, so that `failed` counts only the pushes that
  /// failed for a reason worth a look.
  var label: String {
    switch self {
    case .sent: return "sent"
    case .retry: return "retry"
    case .renewTokenAndRetry: return "renew_token"
    case .failed(_, _, true, _): return "deactivated"
    case .failed: return "failed"
    }
  }
}

enum DeliveryPolicy {
  /// A notification older than this is not worth delivering any more.
  static let maximumAgeSeconds: Double = 30 * 60

  static func classify(_ result: HTTPClientResult, deviceRegisteredAt: Date) -> DeliveryAction {
    switch result {
    case .failure(let message):
      return .retry(status: nil, reason: "network: \(message)")
    case .response(let status, let headers, let body):
      let refusal = APNsRefusal.read(body)
      // Recorded in the event log: whatever the service sent, cleaned and short.
      let reason =
        refusal?.reason.map {
          CleanText.clean($0, maximumCharacters: 200, marksCut: true)
        } ?? "status \(status)"
      switch status {
      case 200:
        return .sent(apnsID: headers["apns-id"])
      case 429, 500...599:
        return .retry(status: status, reason: reason)
      case 403 where reason == "ExpiredProviderToken" || reason == "InvalidProviderToken":
        return .renewTokenAndRetry(reason: reason)
      case 410 where reason == "Unregistered":
        // APNs's timestamp says when the token stopped being valid; a token registered
        // after that (the app reinstalled) is still good. The claim's registration time
        // only rules out what is already known; the store checks again, against the
        // registration time of that moment, in the statement that switches the device off.
        let timestamp = refusal?.timestamp
        let registered = Int64(deviceRegisteredAt.timeIntervalSince1970 * 1000)
        return .failed(
          status: status, reason: reason,
          deactivateDevice: timestamp.map { $0 > registered } ?? true,
          apnsTimestamp: timestamp)
      case 400 where reason == "BadDeviceToken":
        return .failed(status: status, reason: reason, deactivateDevice: true, apnsTimestamp: nil)
      default:
        return .failed(status: status, reason: reason, deactivateDevice: false, apnsTimestamp: nil)
      }
    }
  }

  /// Exponential backoff with jitter: about 1, 2, 4, ... seconds, at most 5 minutes.
  static func retryDelay(attempt: Int) -> Double {
    let ceiling = min(300, pow(2, Double(max(0, attempt - 1))))
    return Double.random(in: (ceiling / 2)...ceiling)
  }

  /// Whether a device token can be sent at all: 64 hexadecimal digits.
  static func isWellFormed(token: String) -> Bool { HexToken.isWellFormed(token) }
}
