import Dispatch
import Foundation
import Infrastructure

/// A response as read off the wire.
struct RawResponse: Sendable {
  let status: Int
  /// Header names lowercased; a repeated header keeps its last value.
  let headers: [String: String]
  let body: [UInt8]

  var text: String { String(decoding: body, as: UTF8.self) }
  var json: [String: JSONValue]? { JSON.object(from: body) }
}

struct RawHTTPError: Error, CustomStringConvertible {
  let description: String
}

/// An HTTP/1.1 client that sends exactly the bytes a test writes (targets URLSession
/// would normalise or refuse: repeated parameters, `%` tricks, broken request lines) over
/// a fresh loopback connection, and reads until the server closes it.
///
/// The socket work blocks, so it runs on a queue of its own, never on the cooperative
/// pool that the server's own request tasks need.
enum RawHTTP {
  static func get(_ port: Int, _ target: String, headers: [String: String] = [:]) async throws
    -> RawResponse
  {
    try await request(port, method: "GET", target: target, headers: headers)
  }

  static func request(
    _ port: Int, method: String, target: String, headers: [String: String] = [:],
    body: [UInt8] = []
  ) async throws -> RawResponse {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
    if !body.isEmpty || method == "POST" || method == "DELETE" {
      head += "Content-Length: \(body.count)\r\n"
    }
    head += "\r\n"
    return try await send(port, Array(head.utf8) + body)
  }

  /// Sends `bytes` as they are and parses what comes back.
  static func send(_ port: Int, _ bytes: [UInt8]) async throws -> RawResponse {
    let reply = try await exchange(port, bytes)
    return try parse(reply)
  }

  /// Sends `bytes` and returns everything the server wrote before closing.
  static func exchange(_ port: Int, _ bytes: [UInt8]) async throws -> [UInt8] {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue(label: "raw-http").async {
        continuation.resume(with: Result { try blockingExchange(port, bytes) })
      }
    }
  }

  private static func blockingExchange(_ port: Int, _ bytes: [UInt8]) throws -> [UInt8] {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RawHTTPError(description: "socket failed") }
    defer { close(fd) }
    // Generous: in the full parallel run a loaded machine has kept an answer over 10 s.
    // What the tests check is the answer, not how fast it came.
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw RawHTTPError(description: "connect to \(port) failed") }
    var sent = 0
    while sent < bytes.count {
      // MSG_NOSIGNAL: a server that answers before reading the whole body (413) closes
      // early, and a plain write would raise SIGPIPE in the test process.
      let n = bytes[sent...].withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard n > 0 else { break }  // the server may close early (a refused body)
      sent += n
    }
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let n = read(fd, &buffer, buffer.count)
      if n <= 0 { break }
      reply.append(contentsOf: buffer[..<n])
    }
    return reply
  }

  static func parse(_ reply: [UInt8]) throws -> RawResponse {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let end = reply.firstRange(of: separator) else {
      throw RawHTTPError(
        description: "no complete response: \(String(decoding: reply, as: UTF8.self))")
    }
    let head = String(decoding: reply[..<end.lowerBound], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
      throw RawHTTPError(description: "bad status line in \(head)")
    }
    var headers: [String: String] = [:]
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
        .trimmingCharacters(in: .whitespaces)
    }
    let body = Array(reply[end.upperBound...])
    if let length = headers["content-length"].flatMap(Int.init), length != body.count {
      throw RawHTTPError(description: "body of \(body.count) bytes, Content-Length \(length)")
    }
    return RawResponse(status: status, headers: headers, body: body)
  }
}
