import Events
import Infrastructure

/// The signed-in user of an inbox request: `Authorization: Bearer <token>`, the token from
/// `mowdeck session create`, looked up by its hash (Directory).
struct SessionAuth: Sendable {
  let directory: Directory

  static let unauthorized = HTTPResponse.plain(401).adding("WWW-Authenticate", "Bearer")

  /// The token of the one Authorization header, or nil when it is missing, repeated, not
  /// Bearer, or holds anything a session token cannot (tokens are 64 hex digits).
  static func bearerToken(_ headers: HTTPHeaders) -> String? {
    guard headers.count(of: "Authorization") == 1, let value = headers["Authorization"] else {
      return nil
    }
    let parts = value.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[0].lowercased() == "bearer", HexToken.isWellFormed(parts[1])
    else { return nil }
    return String(parts[1])
  }

  /// The user whose live session the request carries, or nil.
  func user(of request: HTTPRequest) async throws -> String? {
    guard let token = Self.bearerToken(request.headers) else { return nil }
    return try await directory.user(forSessionToken: token.lowercased())
  }
}
