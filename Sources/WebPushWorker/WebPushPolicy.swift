import Events
import FoundationEssentials
import Infrastructure

/// What a push service's answer means (RFC 8030 section 5, and the contract's outcomes):
/// - 201 (and any 2xx): sent;
/// - 3xx: failed for good, never followed (the HTTP client does not follow redirects: the
///   server posts only to the endpoint stored, never to an address an answer names);
/// - 404 and 410: the subscription is gone, the device is switched off;
/// - 429, 5xx and no answer at all: retried with backoff, after `Retry-After` when given;
/// - any other 4xx (400 a malformed request, 401/403 a VAPID the service refuses, 413 too
///   large): failed for good, for this message.
/// The backoff and the age limit are every channel's (`ChannelBackoff`).
enum WebPushPolicy {
  static func classify(_ result: HTTPClientResult) -> ChannelAnswer {
    switch result {
    case .failure(let reason):
      return .retry(status: nil, reason: "network: \(reason)", notBeforeSeconds: nil)
    case .response(let status, let headers, _):
      switch status {
      case 200..<300: return .sent(status: status)
      case 300..<400:
        return .failed(status: status, reason: "redirect_not_followed", deactivateDevice: false)
      case 404, 410:
        return .failed(status: status, reason: "subscription_gone", deactivateDevice: true)
      case 429, 500..<600:
        return .retry(
          status: status, reason: status == 429 ? "too_many_requests" : "push_service_error",
          notBeforeSeconds: headers["retry-after"].flatMap(ChannelBackoff.retryAfterSeconds))
      case 413:
        return .failed(status: status, reason: "payload_too_large", deactivateDevice: false)
      case 401, 403:
        return .failed(status: status, reason: "vapid_refused", deactivateDevice: false)
      default:
        return .failed(status: status, reason: "refused", deactivateDevice: false)
      }
    }
  }
}
