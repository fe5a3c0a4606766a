/// A granted access token (RFC 6749 section 5.1), as Google's token endpoint writes it.
struct TokenGrant: Codable, Equatable, Sendable {
  var accessToken: String
  var expiresIn: Int
  var tokenType = "Bearer"

  enum CodingKeys: String, CodingKey {
    case accessToken = "access_token"
    case expiresIn = "expires_in"
    case tokenType = "token_type"
  }
}

/// A refused token request (RFC 6749 section 5.2).
struct OAuthError: Codable, Equatable, Sendable, Error {
  var status = 400
  var error: String
  var errorDescription: String

  enum CodingKeys: String, CodingKey {
    case error
    case errorDescription = "error_description"
  }

  static func invalidGrant(_ description: String) -> OAuthError {
    OAuthError(error: "invalid_grant", errorDescription: description)
  }
}
