import FoundationEssentials

/// The claims of a VAPID JWT (RFC 8292 section 2): the push service's origin, the expiry
/// in seconds since the epoch, and the contact for the application server's operator.
public struct VAPIDClaims: Codable, Equatable, Sendable {
  public var aud: String
  public var exp: Int
  public var sub: String

  public init(aud: String, exp: Int, sub: String) {
    self.aud = aud
    self.exp = exp
    self.sub = sub
  }
}

/// The JOSE header every VAPID JWT carries.
struct VAPIDTokenHeader: Codable, Equatable {
  var typ = "JWT"
  var alg = "ES256"
}

/// Voluntary Application Server Identification (RFC 8292): the `Authorization` header value
/// `vapid t=<JWT>, k=<public key>` that proves to a push service that a push comes from the
/// application server the subscription was made for.
public struct VAPIDAuthorization: Sendable {
  /// How long a token is valid. RFC 8292 allows at most 24 hours; 12 leaves room for clock
  /// skew between this server and the push service.
  public static let lifetime: TimeInterval = 12 * 60 * 60
  /// The furthest ahead `exp` may lie (RFC 8292 section 2).
  public static let maximumLifetime: TimeInterval = 24 * 60 * 60

  public let key: ES256SigningKey
  public let subject: String

  /// Throws `badSubject` unless `subject` is a `mailto:` or `https:` URI.
  public init(key: ES256SigningKey, subject: String) throws(VAPIDError) {
    let lowered = subject.lowercased()
    guard
      (lowered.hasPrefix("mailto:") && lowered.count > 7)
        || (lowered.hasPrefix("https://") && lowered.count > 8)
    else { throw .badSubject(subject) }
    self.key = key
    self.subject = subject
  }

  /// The header value for a push to `endpoint`, valid from `now` for `lifetime`.
  public func headerValue(endpoint: String, now: Date) throws(VAPIDError) -> String {
    guard let audience = Self.audience(ofEndpoint: endpoint) else {
      throw .badEndpoint(endpoint)
    }
    let claims = VAPIDClaims(
      aud: audience, exp: Int(now.timeIntervalSince1970 + Self.lifetime), sub: subject)
    let signingInput =
      Base64URL.encode(WireCoding.encode(VAPIDTokenHeader())) + "."
      + Base64URL.encode(WireCoding.encode(claims))
    guard let signature = key.sign(Array(signingInput.utf8)) else { throw .signingFailed }
    let token = signingInput + "." + Base64URL.encode(signature)
    return "vapid t=\(token), k=\(Base64URL.encode(key.publicKeyUncompressed))"
  }

  /// The origin of a push endpoint, as `aud` names it: scheme://host[:port], without path,
  /// query or a default port; nil unless it is an absolute http(s) URL with a host.
  public static func audience(ofEndpoint endpoint: String) -> String? {
    guard let components = URLComponents(string: endpoint),
      let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
      let host = components.host?.lowercased(), !host.isEmpty
    else { return nil }
    let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    let defaultPort = scheme == "https" ? 443 : 80
    guard let port = components.port, port != defaultPort else {
      return "\(scheme)://\(bracketed)"
    }
    return "\(scheme)://\(bracketed):\(port)"
  }
}
