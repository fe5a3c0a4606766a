/// A request as routes see it, copied out of libmicrohttpd so that it outlives the C
/// callback and can be handed to a task.
public struct HTTPRequest: Sendable {
  public let method: String
  /// The request target exactly as the client sent it: path and query, nothing decoded.
  /// Routes parse it themselves, so percent-encoding cannot smuggle anything past them.
  public let target: String
  public let headers: HTTPHeaders
  public let body: [UInt8]
  /// The client: the TCP peer, or behind a trusted proxy the address it forwarded for
  /// (`TrustedProxies`).
  public let clientAddress: ClientAddress
  /// The HTTP/2 connection and stream the request came on, from a server that counts them
  /// (the test doubles', whose record files show multiplexing); nil over HTTP/1.1.
  public let http2: HTTP2StreamID?
  /// The `{...}` segments of the matched route pattern, in order, as sent (not decoded).
  public internal(set) var parameters: [Substring] = []

  public init(
    method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
    clientAddress: ClientAddress = .unknown, http2: HTTP2StreamID? = nil
  ) {
    self.method = method
    self.target = target
    self.headers = headers
    self.body = body
    self.clientAddress = clientAddress
    self.http2 = http2
  }

  /// The target up to the `?`.
  public var path: Substring {
    guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target[...] }
    return target[..<mark]
  }

  /// The text after the first `?`, or nil when there is none.
  public var query: Substring? {
    guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
    return target[target.utf8.index(after: mark)...]
  }
}

/// An HTTP/2 connection, numbered from 1 in the order the server accepted them, and a
/// stream on it.
public struct HTTP2StreamID: Sendable, Equatable {
  public let connection: Int
  public let stream: Int

  public init(connection: Int, stream: Int) {
    self.connection = connection
    self.stream = stream
  }
}

/// Request headers in arrival order; names compare without regard to case.
public struct HTTPHeaders: Sendable {
  public private(set) var fields: [(name: String, value: String)] = []

  public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

  public mutating func append(name: String, value: String) { fields.append((name, value)) }

  /// The first value of `name`, or nil.
  public subscript(name: String) -> String? {
    fields.first { $0.name.caseInsensitiveEquals(name) }?.value
  }

  /// How many times `name` occurs (a repeated Authorization header is refused).
  public func count(of name: String) -> Int {
    fields.reduce(0) { $0 + ($1.name.caseInsensitiveEquals(name) ? 1 : 0) }
  }
}

extension String {
  /// ASCII case-insensitive comparison: enough for header names, and no allocation.
  func caseInsensitiveEquals(_ other: String) -> Bool {
    func lower(_ c: UInt8) -> UInt8 { (65...90).contains(c) ? c | 0x20 : c }
    return utf8.count == other.utf8.count
      && zip(utf8, other.utf8).allSatisfy { lower($0) == lower($1) }
  }
}
