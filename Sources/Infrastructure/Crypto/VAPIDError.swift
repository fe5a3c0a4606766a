/// Why a VAPID header could not be made or does not verify, naming the part at fault.
public enum VAPIDError: Error, Equatable, CustomStringConvertible {
  /// RFC 8292 section 2.1: the subject is a `mailto:` or `https:` URI.
  case badSubject(String)
  /// The push endpoint is not an absolute http(s) URL with a host.
  case badEndpoint(String)
  case signingFailed
  /// The Authorization value is not `vapid t=<JWT>, k=<key>`.
  case malformedHeader(String)
  /// The JWT is not three base64url parts with the ES256 header and readable claims.
  case malformedToken(String)
  case badKey(P256Error)
  case badSignature
  /// `exp` is past, or further than 24 hours ahead (RFC 8292 section 2).
  case expired(exp: Int)
  case expiresTooLate(exp: Int)

  public var description: String {
    switch self {
    case .badSubject(let subject):
      return "the VAPID subject must be a mailto: or https: URI, not '\(subject)'"
    case .badEndpoint(let endpoint): return "the push endpoint is not an http(s) URL: \(endpoint)"
    case .signingFailed: return "signing the VAPID JWT failed"
    case .malformedHeader(let reason): return "malformed VAPID Authorization header: \(reason)"
    case .malformedToken(let reason): return "malformed VAPID JWT: \(reason)"
    case .badKey(let error): return "unusable VAPID public key: \(error)"
    case .badSignature: return "the VAPID JWT signature does not verify with its k key"
    case .expired(let exp): return "the VAPID JWT expired (exp \(exp))"
    case .expiresTooLate(let exp):
      return "the VAPID JWT expires more than 24 hours ahead (exp \(exp))"
    }
  }
}
