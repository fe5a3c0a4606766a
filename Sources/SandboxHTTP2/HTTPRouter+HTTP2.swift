import Infrastructure

extension HTTPRouter {
  /// This router's routes as the HTTP/2 server's handler: each request as an
  /// `HTTPRequest` naming its connection and stream, each `HTTPReply` as the answer (at
  /// once, or from a task). A body over the server's limit is 413; a request without
  /// `:method` or `:path` is 400.
  public var http2Handler: (HTTP2Request) -> HTTP2Reply {
    { request in
      guard let method = request.method, let path = request.path else {
        return HTTP2Reply(.respond(.plain(400)))
      }
      guard !request.bodyTooLarge else { return HTTP2Reply(.respond(.plain(413))) }
      let routed = route(
        HTTPRequest(
          method: method, target: path, headers: request.headers, body: request.body,
          http2: HTTP2StreamID(connection: request.connection, stream: Int(request.stream))))
      switch routed.reply {
      case .now(let response): return HTTP2Reply(.respond(response))
      case .later(let work): return HTTP2Reply(.later(work))
      }
    }
  }
}
