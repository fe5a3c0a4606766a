import FoundationEssentials

/// The OAuth 2 access token a service account's messages are sent with (the FCM HTTP v1
/// API's `Authorization: Bearer`), got by JWT bearer grant and reused until shortly before
/// it expires. See docs/adr/0032-oauth-access-token-source.md.
///
/// - One request at a time: callers arriving while a grant is under way wait for it
///   instead of asking again, so a burst of messages costs one grant.
/// - `invalidate(token:)` after a 401 drops the token only if it is still the current
///   one: many sends refused with one token renew it once.
/// - A failure is remembered for a while (`Settings.refusalHold`, `outageHold`): callers
///   get the same error without asking the endpoint again, so neither a refused
///   credential nor a down endpoint sees a storm of grants. During an outage a token
///   that has not yet expired is still handed out.
public actor OAuthAccessTokenSource {
  /// The scope the FCM HTTP v1 API wants.
  public static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"

  public struct Settings: Sendable {
    public var scope: String
    /// How long before its expiry a token is renewed.
    public var renewalMargin: TimeInterval
    /// How long a refusal is answered from memory: the file will not fix itself.
    public var refusalHold: TimeInterval
    /// How long an outage is answered from memory before the endpoint is tried again.
    public var outageHold: TimeInterval
    public var requestTimeoutSeconds: Int

    public init(
      scope: String = OAuthAccessTokenSource.firebaseMessagingScope,
      renewalMargin: TimeInterval = 60, refusalHold: TimeInterval = 300,
      outageHold: TimeInterval = 2, requestTimeoutSeconds: Int = 10
    ) {
      self.scope = scope
      self.renewalMargin = renewalMargin
      self.refusalHold = refusalHold
      self.outageHold = outageHold
      self.requestTimeoutSeconds = requestTimeoutSeconds
    }
  }

  private let exchange: OAuthTokenExchange
  private let clock: any WallClock
  private let settings: Settings
  private var current: AccessToken?
  private var failure: (error: OAuthTokenError, until: Date)?
  private var inFlight: Task<Result<AccessToken, OAuthTokenError>, Never>?
  /// Tokens granted since start, for the worker's log and metrics.
  public private(set) var grants = 0

  /// - Parameter client: an `HTTPClient` trusting the token endpoint's CA (the system's,
  ///   or a test's).
  public init(
    account: ServiceAccount, client: HTTPClient, clock: any WallClock,
    settings: Settings = Settings()
  ) {
    exchange = OAuthTokenExchange(
      account: account, scope: settings.scope, client: client,
      timeoutSeconds: settings.requestTimeoutSeconds, renewalMargin: settings.renewalMargin)
    self.clock = clock
    self.settings = settings
  }

  /// A token to send with now: the cached one, or a fresh one from the token endpoint.
  public func accessToken() async throws(OAuthTokenError) -> String {
    let now = clock.now()
    if let current, now < current.renewAt { return current.value }
    if let failure, now < failure.until { return try stillUsable(after: failure.error) }
    switch await (inFlight ?? startGrant(now: now)).value {
    case .success(let token): return token.value
    case .failure(let error): return try stillUsable(after: error)
    }
  }

  /// Forgets `token` after the API refused it (401), so the next call renews it; does
  /// nothing when another caller already did (the current token is another one). True
  /// when it was dropped.
  @discardableResult
  public func invalidate(token: String) -> Bool {
    guard current?.value == token else { return false }
    current = nil
    return true
  }

  /// During an outage, the current token while it has not expired; else the error.
  private func stillUsable(after error: OAuthTokenError) throws(OAuthTokenError) -> String {
    if error.isOutage, let current, clock.now() < current.expiresAt { return current.value }
    throw error
  }

  private func startGrant(now: Date) -> Task<Result<AccessToken, OAuthTokenError>, Never> {
    let exchange = self.exchange
    // Detached: the grant is shared by every waiting caller, so no one caller's
    // cancellation may end it.
    let task = Task.detached {
      let result = await exchange.fetch(now: now)
      await self.finish(result)
      return result
    }
    inFlight = task
    return task
  }

  /// Runs before any waiting caller resumes: they all see the outcome in place.
  private func finish(_ result: Result<AccessToken, OAuthTokenError>) {
    inFlight = nil
    switch result {
    case .success(let token):
      current = token
      failure = nil
      grants += 1
    case .failure(let error):
      let hold = error.isOutage ? settings.outageHold : settings.refusalHold
      failure = (error, clock.now().addingTimeInterval(hold))
    }
  }
}
