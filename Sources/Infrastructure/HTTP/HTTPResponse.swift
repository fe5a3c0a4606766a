/// What a route answers. The server adds `Content-Length` (and `Date`).
public struct HTTPResponse: Sendable {
  public var status: Int
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]
  /// A bare status with its reason phrase as text and no other header: the server answers
  /// it with one response object built at start instead of building one each time.
  public internal(set) var isPlain = false

  public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The status and its reason phrase, nothing else: no hint of why.
  public static func plain(_ status: Int) -> HTTPResponse {
    // Built once for the common statuses: a forged request should cost no allocation here.
    if let common = commonPlain[status] { return common }
    return makePlain(status)
  }

  private static let commonPlain = Dictionary(
    uniqueKeysWithValues: [400, 401, 404, 405, 410, 413, 429, 500, 503].map { ($0, makePlain($0)) })

  private static func makePlain(_ status: Int) -> HTTPResponse {
    var response = HTTPResponse(
      status: status, headers: [("Content-Type", "text/plain; charset=utf-8")],
      body: Array((HTTPStatus.reason(status) + "\n").utf8))
    response.isPlain = true
    return response
  }

  /// A typed JSON answer, through the one coder of messages (`WireCoding`): keys sorted, no
  /// whitespace (docs/interfaces.md, conventions). An answer that must write an absent value
  /// as `null` says so in its own `encode(to:)`.
  public static func json(_ status: Int, _ value: some Encodable) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: [("Content-Type", "application/json")],
      body: WireCoding.encode(value))
  }

  public func adding(_ name: String, _ value: String) -> HTTPResponse {
    var copy = self
    copy.headers.append((name, value))
    copy.isPlain = false
    return copy
  }
}

/// What a route's handler returns: an answer now, on libmicrohttpd's thread, or work that
/// must wait (for PostgreSQL); then the connection is suspended until the work is done.
public enum HTTPReply: Sendable {
  case now(HTTPResponse)
  case later(@Sendable () async -> HTTPResponse)
}

/// Reason phrases for the statuses this project answers.
public enum HTTPStatus {
  public static func reason(_ status: Int) -> String {
    switch status {
    case 200: return "OK"
    case 201: return "Created"
    case 204: return "No Content"
    case 400: return "Bad Request"
    case 401: return "Unauthorized"
    case 403: return "Forbidden"
    case 404: return "Not Found"
    case 405: return "Method Not Allowed"
    case 410: return "Gone"
    case 413: return "Content Too Large"
    case 429: return "Too Many Requests"
    case 500: return "Internal Server Error"
    case 503: return "Service Unavailable"
    default: return "Status \(status)"
    }
  }
}
