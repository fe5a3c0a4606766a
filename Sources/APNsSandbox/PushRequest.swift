import SandboxHTTP2

/// One request as APNs reads it: method, path, the headers it knows, and body.
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
  /// At most one byte over the limit (the server's body limit), so a huge body cannot
  /// fill memory; `bodyLength` counts every byte received.
  var body: [UInt8] = []
  var bodyLength = 0

  init(_ request: HTTP2Request) {
    method = request.method
    path = request.path
    for (name, value) in request.headers.fields {
      if headers[name] == nil {
        headers[name] = value
      } else if Self.headersOfInterest.contains(name) {
        repeatedHeaders.insert(name)
      }
    }
    body = request.body
    bodyLength = request.bodyLength
  }

  /// The device token when the path has the form `/3/device/<token>`, valid or not.
  var pathToken: String? {
    guard let path, path.hasPrefix("/3/device/") else { return nil }
    return String(path.dropFirst("/3/device/".count))
  }
}
