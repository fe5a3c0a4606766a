/// What a channel makes of one attempt (its policy's reading of the push service's answer,
/// or of the request it could not make). The shared loop turns it into the recorded
/// `ChannelOutcome`: the backoff and the age limit are the same for every channel.
public enum ChannelAnswer: Sendable, Equatable {
  case sent(status: Int)
  /// 429, 5xx, no answer at all: try again, never sooner than `notBeforeSeconds` when the
  /// service said (`Retry-After`).
  case retry(status: Int?, reason: String, notBeforeSeconds: Double?)
  /// For good, for this message; `deactivateDevice` when the address is gone.
  case failed(status: Int?, reason: String, deactivateDevice: Bool)

  /// A short name for metrics (`mowdeck_<platform>_responses_total`).
  public var label: String {
    switch self {
    case .sent: "sent"
    case .retry: "retry"
    case .failed(_, _, true): "deactivated"
    case .failed: "failed"
    }
  }

  /// The push service's status when it answered with anything but success, for
  /// `mowdeck_<platform>_refusals_total`; nil when it accepted or never answered.
  public var refusalStatus: Int? {
    switch self {
    case .sent: nil
    case .retry(let status, _, _), .failed(let status, _, _): status
    }
  }
}
