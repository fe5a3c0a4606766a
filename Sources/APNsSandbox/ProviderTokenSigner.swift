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

  func token(issuedAt: Int64) throws(SigningFailed) -> String {
    let header = JSON.encode(["alg": "ES256", "kid": keyID])
    let claims = JSON.encode(["iss": teamID, "iat": issuedAt])
    let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    guard let signature = key.sign(Array(input.utf8)) else { throw SigningFailed() }
    return input + "." + Base64URL.encode(signature)
  }
}
