import FoundationEssentials

/// The claims of the JWT a service account trades for an access token (RFC 7523, as
/// Google's token endpoint reads them): who signs, what for, at which endpoint, and when.
public struct OAuthAssertionClaims: Codable, Equatable, Sendable {
  public var iss: String
  /// Space-separated scopes the access token is asked for.
  public var scope: String
  /// The token endpoint's URL (the service account's `token_uri`).
  public var aud: String
  public var iat: Int
  public var exp: Int

  public init(iss: String, scope: String, aud: String, iat: Int, exp: Int) {
    self.iss = iss
    self.scope = scope
    self.aud = aud
    self.iat = iat
    self.exp = exp
  }
}

/// The JOSE header of an assertion.
public struct RS256TokenHeader: Codable, Equatable, Sendable {
  public var alg = "RS256"
  public var typ = "JWT"

  public init() {}
}

/// The JWT bearer grant's assertion (RFC 7523 section 2.1): claims signed RS256 with the
/// service account's key.
public enum JWTBearerAssertion {
  /// Google refuses assertions valid for longer than an hour.
  public static let maximumLifetime: TimeInterval = 3600

  /// The claims for `account` asking for `scope`, valid from `now` for the hour Google
  /// allows.
  public static func claims(for account: ServiceAccount, scope: String, now: Date)
    -> OAuthAssertionClaims
  {
    let iat = Int(now.timeIntervalSince1970)
    return OAuthAssertionClaims(
      iss: account.clientEmail, scope: scope, aud: account.tokenURI, iat: iat,
      exp: iat + Int(maximumLifetime))
  }

  /// The signed JWT of `claims`.
  public static func sign(_ claims: OAuthAssertionClaims, with key: RS256SigningKey)
    throws(RS256Error) -> String
  {
    try CompactJWS.serialize(header: RS256TokenHeader(), claims: claims) {
      (input: [UInt8]) throws(RS256Error) -> [UInt8] in try key.sign(input)
    }
  }
}
