/// Method and path to handler. Patterns are literal segments and `{name}` segments, which
/// match any one non-empty segment, compared with the path exactly as sent (never decoded):
/// `/api/v1/notifications/inbox/{item}/image`. A path that matches no pattern is 404; one
/// that matches with another method is 405.
public struct HTTPRouter: Sendable {
  public typealias Handler = @Sendable (HTTPRequest) -> HTTPReply

  private enum Segment: Sendable, Equatable {
    case literal(Substring)
    case parameter
  }

  private struct Route: Sendable {
    let method: String
    let segments: [Segment]
    /// The pattern: a bounded label for metrics.
    let name: String
    let handler: Handler
  }

  private var routes: [Route] = []

  /// The metrics label of requests that matched no route.
  public static let unmatched = "unmatched"

  public init() {}

  /// Registers `handler` for `method` (GET routes also answer HEAD) on `pattern`.
  public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
    let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
      .map { $0.hasPrefix("{") && $0.hasSuffix("}") ? Segment.parameter : .literal($0) }
    routes.append(Route(method: method, segments: Array(segments), name: pattern, handler: handler))
  }

  public mutating func get(_ pattern: String, _ handler: @escaping Handler) {
    add("GET", pattern, handler)
  }

  /// The route for `request` (its parameters filled in) and its reply; 404 or 405 when
  /// there is none.
  public func route(_ request: HTTPRequest) -> (name: String, reply: HTTPReply) {
    let path = request.path
    guard path.utf8.first == UInt8(ascii: "/") else {
      return (Self.unmatched, .now(.plain(404)))
    }
    let method = request.method == "HEAD" ? "GET" : request.method
    var allowed: [String] = []
    var pathName = Self.unmatched
    for route in routes {
      guard let parameters = Self.match(route.segments, path) else { continue }
      guard route.method == method else {
        allowed.append(route.method)
        pathName = route.name
        continue
      }
      var matched = request
      matched.parameters = parameters
      return (route.name, route.handler(matched))
    }
    guard !allowed.isEmpty else { return (Self.unmatched, .now(.plain(404))) }
    if allowed.contains("GET") { allowed.append("HEAD") }
    return (pathName, .now(.plain(405).adding("Allow", allowed.joined(separator: ", "))))
  }

  /// Walks `path` (which starts with `/`) segment by segment against `segments`, without
  /// splitting it into an array first: most requests are compared with several routes.
  private static func match(_ segments: [Segment], _ path: Substring) -> [Substring]? {
    let bytes = path.utf8
    var start = bytes.index(after: bytes.startIndex)
    var parameters: [Substring] = []
    for (index, segment) in segments.enumerated() {
      let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
      let part = path[start..<end]
      switch segment {
      case .literal(let literal):
        guard literal == part else { return nil }
      case .parameter:
        guard !part.isEmpty else { return nil }
        parameters.append(part)
      }
      let isLast = index == segments.count - 1
      guard isLast == (end == bytes.endIndex) else { return nil }
      if !isLast { start = bytes.index(after: end) }
    }
    return parameters
  }
}
