/// The JOSE header of the APNs provider token (docs/interfaces.md#apns, `authorization`):
/// ES256 and the team key's id.
struct ProviderTokenHeader: Codable, Equatable, Sendable {
  let alg: String
  let kid: String

  init(keyID: String) {
    alg = "ES256"
    kid = keyID
  }
}

/// The claims of the APNs provider token: the team id and the time it was signed, in Unix
/// seconds.
struct ProviderTokenClaims: Codable, Equatable, Sendable {
  let iss: String
  let iat: Int
}
