import Infrastructure

/// What the server does with a complete request, and whom it tells how that ended.
public struct HTTP2Reply {
  public enum Action {
    /// `response` after `delay` (other streams go on meanwhile), then GOAWAY (NO_ERROR)
    /// when `thenGoaway`: the client must open a new connection for its next requests.
    case respond(HTTPResponse, after: Duration = .zero, thenGoaway: Bool = false)
    /// The response of work that runs as a task, off the server's thread.
    case later(@Sendable () async -> HTTPResponse)
    /// GOAWAY whose last stream id excludes this request, which is never answered: the
    /// client may retry it safely on a new connection.
    case refuseWithGoaway
    /// The TCP connection closed at once, without TLS close or GOAWAY: this and every
    /// other unanswered stream on it get nothing.
    case drop
  }

  public var action: Action
  /// Told once, on the server's thread, how the exchange ended.
  public var ended: ((HTTP2Outcome) -> Void)?

  public init(_ action: Action, ended: ((HTTP2Outcome) -> Void)? = nil) {
    self.action = action
    self.ended = ended
  }
}

/// How an exchange ended.
public enum HTTP2Outcome: String, Sendable {
  /// The answer was sent.
  case answered
  /// The connection was closed without answering (`drop`).
  case dropped
  /// GOAWAY excluded the stream, which was never answered (`refuseWithGoaway`).
  case refused
  /// The client reset the stream, or the connection ended, before the answer was ready.
  case abandoned
}
