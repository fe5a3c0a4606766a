/// Why no access token could be had. The two kinds ask for opposite handling: an outage
/// passes by itself (the worker retries its messages later), a refusal never does (the
/// operator must fix the service account), so the token source must not keep asking.
public enum OAuthTokenError: Error, Equatable, CustomStringConvertible {
  /// The token endpoint could not be reached, answered 429 or 5xx, or answered 200 with
  /// something that is not a token.
  case outage(String)
  /// The token endpoint refused the assertion (RFC 6749 section 5.2: `invalid_grant` for a
  /// deleted key or a wrong client_email, `invalid_scope`, ...), or the token_uri answered
  /// another 4xx: the credentials or the file are wrong.
  case refused(status: Int, error: String, detail: String?)
  /// The service account's key could not sign the assertion.
  case signingFailed(RS256Error)

  /// Whether asking again later may succeed without the operator doing anything.
  public var isOutage: Bool {
    if case .outage = self { return true }
    return false
  }

  public var description: String {
    switch self {
    case .outage(let reason): return "the OAuth token endpoint is unavailable: \(reason)"
    case .refused(let status, let error, let detail):
      return "the OAuth token endpoint refused the service account (\(status) \(error)"
        + (detail.map { ": \($0)" } ?? "") + ")"
    case .signingFailed(let error): return "cannot sign the OAuth assertion: \(error)"
    }
  }
}
