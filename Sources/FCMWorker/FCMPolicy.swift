import Events
import FoundationEssentials
import Infrastructure

/// What FCM's answer to one send means (FCM HTTP v1's documented `ErrorCode`s, and the
/// contract's outcomes):
/// - 2xx: sent;
/// - `UNREGISTERED` (404), and `INVALID_ARGUMENT` (400) blaming the registration token:
///   failed, and the device switched off;
/// - `QUOTA_EXCEEDED` (429), `UNAVAILABLE` (503), `INTERNAL` (500), any 429 or 5xx, and no
///   answer at all: retried with backoff, never sooner than `Retry-After`;
/// - 401 `UNAUTHENTICATED`: the access token was refused: the channel renews it and sends
///   once more;
/// - `THIRD_PARTY_AUTH_ERROR` (401): the Firebase project's own APNs or Web Push credentials
///   were refused, which a new access token cannot mend: retried later, as a credentials
///   problem the operator must see;
/// - `SENDER_ID_MISMATCH` (403) and every other 4xx: failed for good, for this message.
/// The backoff and the age limit are every channel's (`ChannelBackoff`).
enum FCMPolicy {
  /// How long a message waits after FCM refused the credentials themselves (a second 401
  /// in a row, or `THIRD_PARTY_AUTH_ERROR`): long enough that a broken project costs a few
  /// requests a minute, not a storm; short enough that a fixed one sends within the
  /// message's half hour.
  static let credentialsRetrySeconds: Double = 60

  enum Reading: Equatable, Sendable {
    /// What the attempt came to.
    case answer(ChannelAnswer)
    /// 401 with no FCM error code: renew the access token and send again, once.
    case accessTokenRefused
    /// FCM refused credentials a new access token does not change: retry later, loudly.
    case credentialsRefused(status: Int, reason: String)
  }

  static func read(_ result: HTTPClientResult) -> Reading {
    switch result {
    case .failure(let reason):
      return .answer(.retry(status: nil, reason: "network: \(reason)", notBeforeSeconds: nil))
    case .response(let status, let headers, let body):
      if (200..<300).contains(status) { return .answer(.sent(status: status)) }
      let error = FCMErrorBody.read(body)
      let code = error?.errorCode
      // Recorded in the event log: FCM's code or Google's status, cleaned and short,
      // whatever a proxy in between may have answered.
      let reason = CleanText.clean(
        (code ?? error?.error.status ?? "status \(status)").lowercased(), maximumCharacters: 64)
      if code == "THIRD_PARTY_AUTH_ERROR" {
        return .credentialsRefused(status: status, reason: reason)
      }
      if status == 401 { return .accessTokenRefused }
      if code == "UNREGISTERED" {
        return .answer(.failed(status: status, reason: reason, deactivateDevice: true))
      }
      if status == 400, code == "INVALID_ARGUMENT" || error?.error.status == "INVALID_ARGUMENT",
        error?.blamesRegistrationToken == true
      {
        return .answer(
          .failed(status: status, reason: "invalid_registration_token", deactivateDevice: true))
      }
      if status == 429 || (500..<600).contains(status) {
        return .answer(
          .retry(
            status: status, reason: reason,
            notBeforeSeconds: headers["retry-after"].flatMap(ChannelBackoff.retryAfterSeconds)))
      }
      return .answer(.failed(status: status, reason: reason, deactivateDevice: false))
    }
  }
}
