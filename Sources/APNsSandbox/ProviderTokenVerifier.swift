import Events
import Foundation
import Infrastructure

/// What a provider token says about itself, as far as it could be read. The signature is
/// never kept: it is the credential.
struct ProviderTokenClaims: Sendable, Equatable {
  var algorithm: String?
  var keyID: String?
  var issuer: String?
  var issuedAt: Int64?
}

/// Checks the `authorization: bearer <jwt>` header as APNs does: an ES256 signature by the
/// team's key, the configured `kid` and `iss`, and an `iat` at most one hour old and at
/// most a minute in the future.
final class ProviderTokenVerifier {
  struct Outcome: Equatable {
    /// Nil when the token is good.
    var reason: APNsReason?
    var claims: ProviderTokenClaims?
  }

  static let maximumAge: Int64 = 3600
  static let allowedClockSkew: Int64 = 60
  /// A client reuses one token for 20 to 60 minutes, so a handful of tokens are in use at a
  /// time; checking a signature once per token keeps the sandbox out of a benchmark's way.
  private static let cacheLimit = 256

  private let publicKey: ES256PublicKey
  private let keyID: String
  private let teamID: String
  /// Tokens whose signature and header/claims were already found good, by their full text.
  private var verified: [Substring: ProviderTokenClaims] = [:]

  init(publicKey: ES256PublicKey, keyID: String, teamID: String) {
    self.publicKey = publicKey
    self.keyID = keyID
    self.teamID = teamID
  }

  func check(authorization: String?, now: Date) -> Outcome {
    guard let authorization else { return Outcome(reason: .missingProviderToken) }
    let scheme = authorization.prefix(7)
    guard scheme.lowercased() == "bearer " else { return Outcome(reason: .invalidProviderToken) }
    let token = authorization.dropFirst(7).drop { $0 == " " }
    guard !token.isEmpty else { return Outcome(reason: .missingProviderToken) }

    let claims: ProviderTokenClaims
    if let known = verified[token] {
      claims = known
    } else {
      let read = readAndVerify(token)
      guard read.reason == nil, let good = read.claims else { return read }
      if verified.count >= Self.cacheLimit { verified.removeAll(keepingCapacity: true) }
      verified[token] = good
      claims = good
    }
    // Time is checked on every use: a cached token still ages.
    let nowSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
    let issuedAt = claims.issuedAt ?? 0
    if nowSeconds - issuedAt > Self.maximumAge {
      return Outcome(reason: .expiredProviderToken, claims: claims)
    }
    if issuedAt - nowSeconds > Self.allowedClockSkew {
      return Outcome(reason: .invalidProviderToken, claims: claims)
    }
    return Outcome(reason: nil, claims: claims)
  }

  /// Parses the three parts, then checks header, claims and signature; the claims come
  /// back even when the token is refused, for the record file.
  private func readAndVerify(_ token: Substring) -> Outcome {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
      let claimBytes = Base64URL.decode(String(parts[1])),
      let header = try? WireCoding.decode(TokenPart.self, from: headerBytes),
      let body = try? WireCoding.decode(TokenPart.self, from: claimBytes)
    else { return Outcome(reason: .invalidProviderToken) }
    let claims = ProviderTokenClaims(
      algorithm: header.alg, keyID: header.kid, issuer: body.iss, issuedAt: body.iat)
    guard claims.algorithm == "ES256", claims.keyID == keyID, claims.issuer == teamID,
      claims.issuedAt != nil, let signature = Base64URL.decode(String(parts[2])),
      publicKey.verify(
        token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count),
        signature: signature)
    else { return Outcome(reason: .invalidProviderToken, claims: claims) }
    return Outcome(reason: nil, claims: claims)
  }
}

/// A provider token's JOSE header or its claims, both read as this: each field reads as what
/// it should be or not at all (a number for `alg`, `iat` as a fraction, a string or a
/// boolean), so the checks refuse the token while the record still shows the fields that did
/// read; a part that is no JSON object does not read. The header's `alg` and `kid` and the
/// claims' `iss` and `iat` are the ones used.
private struct TokenPart: Decodable {
  var alg: String?
  var kid: String?
  var iss: String?
  var iat: Int64?

  private enum CodingKeys: String, CodingKey { case alg, kid, iss, iat }

  init(from decoder: any Decoder) throws {
    let fields = try decoder.container(keyedBy: CodingKeys.self)
    alg = try? fields.decode(String.self, forKey: .alg)
    kid = try? fields.decode(String.self, forKey: .kid)
    iss = try? fields.decode(String.self, forKey: .iss)
    iat = try? fields.decode(Int64.self, forKey: .iat)
  }
}
