import CMicroHTTPD
import CMicroHTTPDShim

// libmicrohttpd's callbacks. They run on its pool threads, never await and never touch
// actor state: a request answered from what it carries is answered here; one that must
// wait is suspended and handed to a task, which resumes the connection when done
// (MHD_resume_connection may be called from any thread).

/// Creates the request's exchange from the raw target, before libmicrohttpd splits and
/// decodes it. The retain passed to C is released in `completedCallback`.
let uriCallback: mowdeck_mhd_uri_callback = { context, uri, _ in
  guard let context else { return nil }
  Unmanaged<HTTPServerCore>.fromOpaque(context).takeUnretainedValue().requestStarted()
  let target = uri.map { String(cString: $0) } ?? ""
  return Unmanaged.passRetained(HTTPExchange(target: target)).toOpaque()
}

/// libmicrohttpd calls this for every request the URI callback saw (it marks them as
/// known to the application), once the response is sent or the connection is gone.
let completedCallback: MHD_RequestCompletedCallback = { context, _, requestContext, _ in
  guard let context, let requestContext, let exchange = requestContext.pointee else { return }
  Unmanaged<HTTPExchange>.fromOpaque(exchange).release()
  requestContext.pointee = nil
  Unmanaged<HTTPServerCore>.fromOpaque(context).takeUnretainedValue().requestEnded()
}

let logCallback: mowdeck_mhd_log_callback = { context, message in
  guard let context, let message else { return }
  let core = Unmanaged<HTTPServerCore>.fromOpaque(context).takeUnretainedValue()
  core.libraryLog.log(["detail": String(cString: message)])
}

let accessCallback: MHD_AccessHandlerCallback = {
  context, connection, _, method, _, uploadData, uploadDataSize, requestContext in
  guard let context, let connection, let method, let uploadDataSize,
    let exchange = requestContext?.pointee
  else { return .NO }
  let core = Unmanaged<HTTPServerCore>.fromOpaque(context).takeUnretainedValue()
  return core.handle(
    Unmanaged<HTTPExchange>.fromOpaque(exchange).takeUnretainedValue(), connection: connection,
    method: method, uploadData: uploadData, uploadDataSize: uploadDataSize)
}

private let collectHeader: MHD_KeyValueIterator = { context, _, key, value in
  guard let context, let key else { return .YES }
  context.assumingMemoryBound(to: HTTPHeaders.self).pointee.append(
    name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
  return .YES
}

extension HTTPServerCore {
  /// One call of the access handler: the first (headers parsed), one per body chunk, the
  /// final one, and one more after a suspended connection was resumed.
  func handle(
    _ exchange: HTTPExchange, connection: OpaquePointer, method: UnsafePointer<CChar>,
    uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>
  ) -> MHD_Result {
    let chunk = uploadDataSize.pointee
    let phase = exchange.state.withLock { state in
      if chunk > 0, let uploadData {
        if state.body.count + chunk <= maxBodyBytes {
          state.body.append(
            contentsOf: UnsafeRawBufferPointer(start: uploadData, count: chunk))
        } else {
          state.bodyTooLarge = true
        }
      }
      return state.phase
    }
    if chunk > 0 {
      uploadDataSize.pointee = 0
      return .YES
    }
    switch phase {
    case .fresh:
      // Headers are in; the answer waits for the final call even without a body, since a
      // response queued this early makes libmicrohttpd close the connection afterwards.
      var headers = HTTPHeaders()
      withUnsafeMutablePointer(to: &headers) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, collectHeader, pointer)
      }
      let declared = headers["Content-Length"].flatMap { Int($0) } ?? 0
      let refused = declared > maxBodyBytes
      exchange.state.withLock {
        $0.headers = headers
        $0.phase = refused ? .answered : .body
      }
      if refused {
        // Refused before it is read: libmicrohttpd then discards the body and closes.
        return answer(.plain(413), exchange: exchange, connection: connection)
      }
      return .YES
    case .body:
      let tooLarge = exchange.state.withLock { state in
        state.phase = .answered
        return state.bodyTooLarge
      }
      if tooLarge {
        return answer(.plain(413), exchange: exchange, connection: connection)
      }
      return dispatch(exchange, connection: connection, method: String(cString: method))
    case .waiting:
      return answer(
        exchange.takeResponse() ?? .plain(500), exchange: exchange, connection: connection)
    case .answered:
      return .YES
    }
  }

  private func dispatch(_ exchange: HTTPExchange, connection: OpaquePointer, method: String)
    -> MHD_Result
  {
    var address = [UInt8](repeating: 0, count: 16)
    let peer =
      mowdeck_mhd_client_address(connection, &address) == 1
      ? ClientAddress(bytes: address) : .unknown
    let (headers, body) = exchange.state.withLock { state in
      defer { state.body = [] }
      return (state.headers, state.body)
    }
    let client = trustedProxies.client(peer: peer, headers: headers)
    let request = HTTPRequest(
      method: method, target: exchange.target, headers: headers, body: body,
      clientAddress: client)
    let (route, reply) = router.route(request)
    exchange.state.withLock { $0.route = route }
    switch reply {
    case .now(let response):
      return answer(response, exchange: exchange, connection: connection)
    case .later(let work):
      guard !isStopping else {
        return answer(
          .plain(503).adding("Connection", "close"), exchange: exchange, connection: connection)
      }
      exchange.state.withLock { $0.phase = .waiting }
      let waiting = SuspendedRequest(exchange: exchange, connection: SendablePointer(connection))
      MHD_suspend_connection(connection)
      // Known to the deadline sweep only once suspended: resuming first would be undefined.
      suspended(waiting)
      Task { resume(waiting, with: await work()) }
      return .YES
    }
  }

  private func answer(_ response: HTTPResponse, exchange: HTTPExchange, connection: OpaquePointer)
    -> MHD_Result
  {
    let status = UInt32(response.status)
    let result: MHD_Result
    if response.isPlain, let shared = plainResponses[response.status] {
      result = MHD_queue_response(connection, status, shared)
    } else {
      guard let built = Self.makeResponse(response) else { return .NO }
      result = MHD_queue_response(connection, status, built)
      MHD_destroy_response(built)
    }
    record(
      route: exchange.state.withLock { $0.route }, status: response.status,
      since: exchange.started)
    return result
  }
}
