import FoundationEssentials

/// What a push service learns from a valid VAPID header: the claims and the application
/// server's public key, which it compares with the subscription's `applicationServerKey`.
public struct VerifiedVAPID: Equatable, Sendable {
  public let claims: VAPIDClaims
  /// The 65-byte uncompressed point from `k`.
  public let publicKey: [UInt8]
  /// The JWT from `t`, as received: what a test double records so that a test can look
  /// for it in the sender's logs.
  public let token: String
}

/// Checks a `vapid t=…, k=…` header as a push service does (RFC 8292 sections 2 and 3): the
/// ES256 signature with the `k` key, and an `exp` neither past nor more than 24 hours ahead.
/// Comparing `aud` with its own origin and `k` with the subscription is left to the caller,
/// which knows both.
public enum VAPIDVerifier {
  public static func verify(headerValue: String, now: Date) throws(VAPIDError) -> VerifiedVAPID {
    let (token, keyText) = try parameters(of: headerValue)
    guard let publicKey = Base64URL.decode(keyText) else {
      throw .malformedHeader("k is not base64url")
    }
    let verifyingKey: ES256VerifyingKey
    do {
      verifyingKey = try ES256VerifyingKey(uncompressed: publicKey)
    } catch {
      throw .badKey(error)
    }
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
      let claimsBytes = Base64URL.decode(String(parts[1])),
      let signature = Base64URL.decode(String(parts[2]))
    else { throw .malformedToken("not three base64url parts") }
    guard let header = try? WireCoding.decode(VAPIDTokenHeader.self, from: headerBytes),
      header.alg == "ES256"
    else { throw .malformedToken("the header is not {\"typ\":\"JWT\",\"alg\":\"ES256\"}") }
    let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
    guard verifyingKey.isValidSignature(signature, of: signingInput) else {
      throw .badSignature
    }
    let claims: VAPIDClaims
    do {
      claims = try WireCoding.decode(VAPIDClaims.self, from: claimsBytes)
    } catch {
      throw .malformedToken(error.description)
    }
    let seconds = now.timeIntervalSince1970
    guard TimeInterval(claims.exp) > seconds else { throw .expired(exp: claims.exp) }
    guard TimeInterval(claims.exp) <= seconds + VAPIDAuthorization.maximumLifetime else {
      throw .expiresTooLate(exp: claims.exp)
    }
    return VerifiedVAPID(claims: claims, publicKey: publicKey, token: token)
  }

  /// `t` and `k` of `vapid t=<JWT>, k=<key>`, in either order.
  private static func parameters(of value: String) throws(VAPIDError) -> (String, String) {
    let trimmed = trimmingSpaces(Substring(value))
    guard trimmed.lowercased().hasPrefix("vapid ") else {
      throw .malformedHeader("the scheme is not vapid")
    }
    var token: String? = nil
    var key: String? = nil
    for parameter in trimmed.dropFirst(6).split(separator: ",") {
      let pair = trimmingSpaces(parameter)
      if pair.hasPrefix("t=") { token = String(pair.dropFirst(2)) }
      if pair.hasPrefix("k=") { key = String(pair.dropFirst(2)) }
    }
    guard let token, let key else { throw .malformedHeader("t or k is missing") }
    return (token, key)
  }

  private static func trimmingSpaces(_ text: Substring) -> Substring {
    var slice = text
    while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
    while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
    return slice
  }
}
