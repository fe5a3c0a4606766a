import Events
import FoundationEssentials
import Infrastructure

/// What an ntfy server's answer means (ADR 0035):
/// - 200 (any 2xx): sent;
/// - 429, 5xx and no answer at all: retried with backoff, after `Retry-After` when given;
/// - 401 and 403: the server refuses this installation's token (or its access to topics):
///   the operator's to fix, not the message's fault, so retried, not sooner than a minute,
///   until the age limit; the channel logs it as an error;
/// - 413 and any other 4xx: failed for good, for this message.
/// No answer switches a device off: ntfy has no "topic gone" (a topic exists while anyone
/// publishes or subscribes to it); a user removes an ntfy device with `DELETE`.
/// The backoff and the age limit are every channel's (`ChannelBackoff`).
enum NtfyPolicy {
  static let credentialsRefused = "credentials_refused"
  /// A refused token is fixed by a person, in minutes: retrying sooner only adds noise.
  static let credentialsRetrySeconds: Double = 60

  static func classify(_ result: HTTPClientResult) -> ChannelAnswer {
    switch result {
    case .failure(let reason):
      return .retry(status: nil, reason: "network: \(reason)", notBeforeSeconds: nil)
    case .response(let status, let headers, _):
      let retryAfter = headers["retry-after"].flatMap(ChannelBackoff.retryAfterSeconds)
      switch status {
      case 200..<300: return .sent(status: status)
      case 429, 500..<600:
        return .retry(
          status: status, reason: status == 429 ? "too_many_requests" : "ntfy_server_error",
          notBeforeSeconds: retryAfter)
      case 401, 403:
        return .retry(
          status: status, reason: credentialsRefused,
          notBeforeSeconds: max(retryAfter ?? 0, credentialsRetrySeconds))
      case 413:
        return .failed(status: status, reason: "payload_too_large", deactivateDevice: false)
      default:
        return .failed(status: status, reason: "refused", deactivateDevice: false)
      }
    }
  }
}
