import Events
import Foundation
import Infrastructure

/// Makes provider tokens the way a client does, for `APNsSandbox make-jwt` (poking the
/// sandbox with curl by hand) and for the tests. The sandbox itself only verifies.
struct ProviderTokenSigner {
  let key: ES256PrivateKey
  let keyID: String
  let teamID: String

  struct SigningFailed: Error, CustomStringConvertible {
    var description: String { "OpenSSL could not sign the provider token" }
  }

  /// The JWT's two JSON parts, as APNs reads them.
  struct Header: Encodable {
    let alg = "ES256"
    let kid: String
  }

  struct Claims: Encodable {
    let iss: String
    let iat: Int64
  }

  func token(issuedAt: Int64) throws(SigningFailed) -> String {
    let header = WireCoding.encode(Header(kid: keyID))
    let claims = WireCoding.encode(Claims(iss: teamID, iat: issuedAt))
    let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
    guard let signature = key.sign(Array(input.utf8)) else { throw SigningFailed() }
    return input + "." + Base64URL.encode(signature)
  }
}
