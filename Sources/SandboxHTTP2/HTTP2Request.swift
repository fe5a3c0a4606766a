import Infrastructure

/// One request as it arrived on an HTTP/2 stream: where it came from, its pseudo-headers,
/// headers and body.
public struct HTTP2Request {
  /// The connection, numbered from 1 in the order they were accepted.
  public let connection: Int
  public let stream: Int32
  public private(set) var method: String?
  public private(set) var path: String?
  /// Regular headers in arrival order (HTTP/2 sends their names in lower case).
  public private(set) var headers = HTTPHeaders()
  /// At most one byte over the server's body limit is kept, so a huge body cannot fill
  /// memory; `bodyLength` counts every byte received.
  public private(set) var body: [UInt8] = []
  public private(set) var bodyLength = 0
  private let bodyLimit: Int

  init(connection: Int, stream: Int32, bodyLimit: Int) {
    self.connection = connection
    self.stream = stream
    self.bodyLimit = bodyLimit
  }

  /// Whether the body was longer than the server's limit (and `body` holds only its start).
  public var bodyTooLarge: Bool { bodyLength > bodyLimit }

  mutating func addHeader(name: String, value: String) {
    switch name {
    case ":method": method = value
    case ":path": path = value
    case _ where name.hasPrefix(":"): break
    default: headers.append(name: name, value: value)
    }
  }

  mutating func appendBody(_ chunk: UnsafeRawBufferPointer) {
    bodyLength += chunk.count
    let room = bodyLimit + 1 - body.count
    if room > 0 { body.append(contentsOf: chunk.prefix(room)) }
  }
}
