import FoundationEssentials

/// One JWT bearer grant (RFC 7523 section 2.1) at the service account's `token_uri`: the
/// form `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`, answered
/// `{"access_token":...,"expires_in":3599,"token_type":"Bearer"}` or an RFC 6749 error.
struct OAuthTokenExchange: Sendable {
  static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

  let account: ServiceAccount
  let scope: String
  let client: HTTPClient
  let timeoutSeconds: Int
  let renewalMargin: TimeInterval

  /// The answer to a successful grant.
  struct Answer: Decodable {
    var accessToken: String
    /// RFC 6749 section 5.1 only recommends it; Google always sends it. Without it the
    /// token is taken to last an hour, Google's lifetime.
    var expiresIn: Int?
    var tokenType: String

    enum CodingKeys: String, CodingKey {
      case accessToken = "access_token"
      case expiresIn = "expires_in"
      case tokenType = "token_type"
    }
  }

  /// An RFC 6749 section 5.2 error answer.
  struct ErrorAnswer: Decodable {
    var error: String
    var errorDescription: String?

    enum CodingKeys: String, CodingKey {
      case error
      case errorDescription = "error_description"
    }
  }

  /// Asks for a token, with an assertion made at `now`.
  func fetch(now: Date) async -> Result<AccessToken, OAuthTokenError> {
    let assertion: String
    do {
      assertion = try JWTBearerAssertion.sign(
        JWTBearerAssertion.claims(for: account, scope: scope, now: now), with: account.signingKey)
    } catch {
      return .failure(.signingFailed(error))
    }
    let body = FormURLEncoding.encode([
      ("grant_type", Self.grantType), ("assertion", assertion),
    ])
    let result = await client.send(
      HTTPClientRequest(
        url: account.tokenURI,
        headers: [("Content-Type", "application/x-www-form-urlencoded")],
        body: Array(body.utf8), timeoutSeconds: timeoutSeconds))
    return Self.read(result, obtainedAt: now, margin: renewalMargin)
  }

  /// Sorts an answer into a token, an outage or a refusal.
  static func read(_ result: HTTPClientResult, obtainedAt: Date, margin: TimeInterval)
    -> Result<AccessToken, OAuthTokenError>
  {
    switch result {
    case .failure(let reason):
      return .failure(.outage(reason))
    case .response(let status, _, let body) where status == 200:
      guard let answer = try? WireCoding.decode(Answer.self, from: body),
        !answer.accessToken.isEmpty, answer.tokenType.lowercased() == "bearer",
        (answer.expiresIn ?? 3600) > 0
      else { return .failure(.outage("the token answer is not a bearer token")) }
      return .success(
        AccessToken(
          value: answer.accessToken, obtainedAt: obtainedAt, expiresIn: answer.expiresIn ?? 3600,
          margin: margin))
    case .response(let status, _, _) where status == 429 || status >= 500:
      return .failure(.outage("status \(status)"))
    case .response(let status, _, let body):
      let answer = try? WireCoding.decode(ErrorAnswer.self, from: body)
      return .failure(
        .refused(
          status: status, error: answer?.error ?? "status \(status)",
          detail: answer?.errorDescription))
    }
  }
}
