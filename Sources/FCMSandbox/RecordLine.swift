import Foundation
import Infrastructure

/// One record line: a token request or a send, and what it was answered. Every key is
/// always written, null when it does not apply, so that readers need no guesswork.
struct RecordLine: Codable, Equatable, Sendable {
  enum Route: String, Codable, Sendable {
    case token
    case send
  }

  var time: Date
  var route: Route
  /// The HTTP/2 connection (numbered from 1 in accept order) and stream of the request.
  var connection: Int?
  var stream: Int?
  var status: Int
  /// The OAuth error, or the Google status or FCM error code, answered.
  var error: String?
  /// Why, in words.
  var detail: String?
  /// Granted (token route) or presented (send route).
  var accessToken: String?
  var expiresIn: Int?
  var iss: String?
  var scope: String?
  var aud: String?
  var project: String?
  var registrationToken: String?
  var message: JSONValue?
  var name: String?

  init(route: Route, time: Date, http2: HTTP2StreamID?) {
    self.time = time
    self.route = route
    connection = http2?.connection
    stream = http2?.stream
    status = 0
  }

  enum CodingKeys: String, CodingKey {
    case time, route, connection, stream, status, error, detail
    case accessToken = "access_token"
    case expiresIn = "expires_in"
    case iss, scope, aud, project
    case registrationToken = "registration_token"
    case message, name
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(time, forKey: .time)
    try container.encode(route, forKey: .route)
    // `encode` of an Optional writes null; the synthesized `encodeIfPresent` would omit it.
    try container.encode(connection, forKey: .connection)
    try container.encode(stream, forKey: .stream)
    try container.encode(status, forKey: .status)
    try container.encode(error, forKey: .error)
    try container.encode(detail, forKey: .detail)
    try container.encode(accessToken, forKey: .accessToken)
    try container.encode(expiresIn, forKey: .expiresIn)
    try container.encode(iss, forKey: .iss)
    try container.encode(scope, forKey: .scope)
    try container.encode(aud, forKey: .aud)
    try container.encode(project, forKey: .project)
    try container.encode(registrationToken, forKey: .registrationToken)
    try container.encode(message, forKey: .message)
    try container.encode(name, forKey: .name)
  }
}
