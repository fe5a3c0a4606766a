import Foundation
import Infrastructure

/// What Google's token endpoint checks of a JWT bearer grant (RFC 7523 section 3): the
/// grant type, an RS256 JWT from the service account signed with its key, for this
/// endpoint, short-lived and current, asking for a scope. Its error texts are Google's
/// where they are known.
struct AssertionCheck: Sendable {
  static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
  /// How far ahead of this clock an assertion's `iat` may be: Google tolerates some skew.
  static let clockSkew: TimeInterval = 300

  /// `https://<host>:<port>/token`: what `aud` must be.
  let tokenURL: String
  let clientEmail: String
  let key: RS256VerifyingKey

  /// The JOSE header's algorithm (`typ` and `kid` may be there or not).
  private struct Header: Decodable {
    var alg: String?
  }

  /// The claims as sent, every one optional, so that a missing one is named.
  private struct Claims: Decodable {
    var iss: String?
    var scope: String?
    var aud: String?
    var iat: Int?
    var exp: Int?
  }

  /// The scope of a valid assertion, or the error to answer; fills in what the record
  /// line shows of the claims once the signature verified.
  func check(_ body: [UInt8], now: Date, line: inout RecordLine) -> Result<String, OAuthError> {
    guard let form = FormURLEncoding.decode(body) else {
      return .failure(
        OAuthError(error: "invalid_request", errorDescription: "unreadable form body"))
    }
    guard form["grant_type"] == Self.grantType else {
      return .failure(
        OAuthError(
          error: "unsupported_grant_type",
          errorDescription: "Invalid grant_type: \(form["grant_type"] ?? "")"))
    }
    guard let assertion = form["assertion"], !assertion.isEmpty else {
      return .failure(
        OAuthError(
          error: "invalid_request", errorDescription: "Missing required parameter: assertion"))
    }
    guard let jws = CompactJWS(assertion),
      let header = try? WireCoding.decode(Header.self, from: jws.header),
      header.alg == "RS256",
      let claims = try? WireCoding.decode(Claims.self, from: jws.claims)
    else { return .failure(.invalidGrant("Invalid JWT: not an RS256 JWT")) }
    guard claims.iss == clientEmail else {
      return .failure(.invalidGrant("Invalid grant: account not found"))
    }
    guard key.isValidSignature(jws.signature, of: jws.signingInput) else {
      return .failure(.invalidGrant("Invalid JWT Signature."))
    }
    line.iss = claims.iss
    line.scope = claims.scope
    line.aud = claims.aud
    guard claims.aud == tokenURL else {
      return .failure(
        .invalidGrant("Invalid JWT: Failed audience check. The right audience is \(tokenURL)"))
    }
    guard let iat = claims.iat, let exp = claims.exp, exp - iat <= 3600, iat <= exp,
      TimeInterval(exp) > now.timeIntervalSince1970,
      TimeInterval(iat) <= now.timeIntervalSince1970 + Self.clockSkew
    else {
      return .failure(
        .invalidGrant(
          "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable "
            + "timeframe. Check your iat and exp values in the JWT claim."))
    }
    guard let scope = claims.scope, !scope.isEmpty else {
      return .failure(
        OAuthError(error: "invalid_scope", errorDescription: "Empty or missing scope not allowed."))
    }
    return .success(scope)
  }
}
