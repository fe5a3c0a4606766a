/// One request as it arrived on an HTTP/2 stream: pseudo-headers, headers and body.
struct PushRequest {
  /// APNs refuses payloads over 4 KB (4096 bytes) for alert pushes.
  static let payloadLimit = 4096
  /// The headers APNs reads; a second copy of one of them is `DuplicateHeaders`.
  static let headersOfInterest: Set<String> = [
    "authorization", "apns-id", "apns-topic", "apns-push-type", "apns-priority",
    "apns-expiration", "apns-collapse-id",
  ]

  var method: String?
  var path: String?
  /// Regular headers by name (HTTP/2 sends them lowercase), first value of each.
  var headers: [String: String] = [:]
  var repeatedHeaders: Set<String> = []
  /// At most one byte over the limit is kept, so a huge body cannot fill memory;
  /// `bodyLength` counts every byte received.
  private(set) var body: [UInt8] = []
  private(set) var bodyLength = 0

  mutating func addHeader(name: String, value: String) {
    switch name {
    case ":method": method = value
    case ":path": path = value
    case _ where name.hasPrefix(":"): break
    default:
      if headers[name] == nil {
        headers[name] = value
      } else if Self.headersOfInterest.contains(name) {
        repeatedHeaders.insert(name)
      }
    }
  }

  mutating func appendBody(_ chunk: UnsafeRawBufferPointer) {
    bodyLength += chunk.count
    let room = Self.payloadLimit + 1 - body.count
    if room > 0 { body.append(contentsOf: chunk.prefix(room)) }
  }

  /// The device token when the path has the form `/3/device/<token>`, valid or not.
  var pathToken: String? {
    guard let path, path.hasPrefix("/3/device/") else { return nil }
    return String(path.dropFirst("/3/device/".count))
  }
}
