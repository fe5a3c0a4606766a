import CSandboxShim

/// One HTTP/2 stream of a connection: the request as it arrives, and the answer's body
/// while nghttp2 sends it.
final class HTTP2Stream {
  let id: Int32
  var request: HTTP2Request

  // nghttp2 pulls the body through the shim's read callback, which reads `body` and the
  // bytes it points to, until the stream closes. The stream is dropped (and these freed)
  // only in on_stream_close, or after nghttp2_session_del: never while nghttp2 may read.
  private var body: UnsafeMutablePointer<mowdeck_sandbox_body>?
  private var bytes: UnsafeMutableBufferPointer<UInt8>?

  init(id: Int32, connection: Int, bodyLimit: Int) {
    self.id = id
    request = HTTP2Request(connection: connection, stream: id, bodyLimit: bodyLimit)
  }

  deinit {
    body?.deallocate()
    bytes?.deallocate()
  }

  /// Copies `content` to memory that stays put until the stream is gone; nil when empty.
  func responseBody(_ content: [UInt8]) -> UnsafeMutablePointer<mowdeck_sandbox_body>? {
    guard !content.isEmpty, body == nil else { return body }
    let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: content.count)
    _ = storage.initialize(from: content)
    let source = UnsafeMutablePointer<mowdeck_sandbox_body>.allocate(capacity: 1)
    source.initialize(
      to: mowdeck_sandbox_body(
        data: UnsafePointer(storage.baseAddress), length: content.count, offset: 0))
    bytes = storage
    body = source
    return source
  }
}
