import CNghttp2
import CSandboxShim
import Foundation
import Infrastructure

/// The HTTP/2 side of a connection: the session, the streams as nghttp2 reports them, and
/// the answers (at once, after a delay, from a task, with or instead of a GOAWAY, or none).
extension Connection {
  func startHTTP2() throws(HTTP2ServerError) {
    var created: OpaquePointer?
    let user = Unmanaged.passUnretained(self).toOpaque()
    guard nghttp2_session_server_new(&created, context.callbacks.pointer, user) == 0,
      let created
    else { throw HTTP2ServerError(.http2, detail: "nghttp2_session_server_new") }
    session = created
    var settings = [
      nghttp2_settings_entry(
        settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
        value: context.settings.maxConcurrentStreams)
    ]
    let result = nghttp2_submit_settings(
      created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    guard result == 0 else {
      throw HTTP2ServerError(.http2, detail: String(cString: nghttp2_strerror(result)))
    }
  }

  // MARK: nghttp2 callbacks (see HTTP2Callbacks)

  func streamBegan(_ id: Int32) {
    streams[id] = HTTP2Stream(id: id, connection: self.id, bodyLimit: context.settings.maxBodyBytes)
  }

  func header(stream id: Int32, name: String, value: String) {
    streams[id]?.request.addHeader(name: name, value: value)
  }

  func data(stream id: Int32, _ chunk: UnsafeRawBufferPointer) {
    streams[id]?.request.appendBody(chunk)
  }

  func requestComplete(stream id: Int32) {
    guard let stream = streams[id] else { return }
    if let last = goawayLastStream, id > last { return }
    let reply = context.handler(stream.request)
    switch reply.action {
    case .drop:
      reply.ended?(.dropped)
      dropRequested = true
    case .refuseWithGoaway:
      reply.ended?(.refused)
      // A last stream id below this one tells the client this request was not processed;
      // nghttp2 closes it (REFUSED_STREAM) once the GOAWAY is sent.
      submitGoaway(lastStream: max(0, id - 2))
    case .later(let work):
      awaiting[id] = reply.ended
      let completions = context.completions
      let connection = self.id
      Task { completions.post(connection: connection, stream: id, response: await work()) }
    case .respond(let response, let delay, let thenGoaway):
      if delay > .zero {
        let due = ContinuousClock.now + delay
        let index = delayed.firstIndex { $0.due > due } ?? delayed.endIndex
        delayed.insert(
          DelayedAnswer(
            due: due, stream: id, response: response, thenGoaway: thenGoaway,
            ended: reply.ended),
          at: index)
      } else {
        respond(stream, response, thenGoaway: thenGoaway, ended: reply.ended)
      }
    }
  }

  func streamClosed(_ id: Int32) {
    if let index = delayed.firstIndex(where: { $0.stream == id }) {
      delayed.remove(at: index).ended?(.abandoned)
    }
    if let ended = awaiting.removeValue(forKey: id) { ended?(.abandoned) }
    streams[id] = nil
  }

  // MARK: answers

  /// When the earliest slow answer is due.
  var nextDeadline: ContinuousClock.Instant? { delayed.first?.due }

  /// Sends the slow answers that are due by `now`.
  func answerDue(now: ContinuousClock.Instant) {
    guard state == .open else { return }
    var answered = false
    while let first = delayed.first, first.due <= now {
      delayed.removeFirst()
      if let stream = streams[first.stream] {
        respond(stream, first.response, thenGoaway: first.thenGoaway, ended: first.ended)
        answered = true
      }
    }
    if answered {
      send()
      finishIfDone()
    }
  }

  /// Sends the answer a task worked out, unless its stream is gone (then it was told so).
  func answerLater(stream id: Int32, _ response: HTTPResponse) {
    guard state == .open, let ended = awaiting.removeValue(forKey: id), let stream = streams[id]
    else { return }
    respond(stream, response, thenGoaway: false, ended: ended)
    send()
    finishIfDone()
  }

  private func respond(
    _ stream: HTTP2Stream, _ response: HTTPResponse, thenGoaway: Bool,
    ended: ((HTTP2Outcome) -> Void)?
  ) {
    guard let session else { return }
    let body = response.body
    // HTTP/2 wants header names in lower case; the length comes from the body.
    var headers = [(":status", String(response.status))]
    for (name, value) in response.headers where name.lowercased() != "content-length" {
      headers.append((name.lowercased(), value))
    }
    if !body.isEmpty { headers.append(("content-length", String(body.count))) }
    let result = withHeaderArray(headers) { nva in
      mowdeck_sandbox_submit_response(
        session, stream.id, nva.baseAddress, nva.count, stream.responseBody(body))
    }
    guard result == 0 else {
      context.logger.warning(
        "cannot answer",
        ["stream": Int(stream.id), "error": String(cString: nghttp2_strerror(result))])
      return
    }
    ended?(.answered)
    if thenGoaway {
      // Every stream the client opened so far is still answered; newer ones are refused.
      submitGoaway(lastStream: nghttp2_session_get_last_proc_stream_id(session))
    }
  }

  private func submitGoaway(lastStream: Int32) {
    guard let session else { return }
    goawayLastStream = min(goawayLastStream ?? lastStream, lastStream)
    let result = nghttp2_submit_goaway(
      session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStream, NGHTTP2_NO_ERROR.rawValue, nil, 0)
    if result != 0 {
      context.logger.warning(
        "cannot send GOAWAY", ["error": String(cString: nghttp2_strerror(result))])
    }
  }
}

/// Lays the header names and values out in one buffer and hands `body` the nghttp2_nv
/// array pointing into it; nghttp2 copies them before returning.
private func withHeaderArray<Result>(
  _ headers: [(String, String)], _ body: (UnsafeBufferPointer<nghttp2_nv>) -> Result
) -> Result {
  var storage: [UInt8] = []
  var ranges: [(name: Range<Int>, value: Range<Int>)] = []
  for (name, value) in headers {
    let nameStart = storage.count
    storage.append(contentsOf: name.utf8)
    let valueStart = storage.count
    storage.append(contentsOf: value.utf8)
    ranges.append((nameStart..<valueStart, valueStart..<storage.count))
  }
  return storage.withUnsafeMutableBufferPointer { buffer in
    let base = buffer.baseAddress!
    let array = ranges.map { range in
      nghttp2_nv(
        name: base + range.name.lowerBound, value: base + range.value.lowerBound,
        namelen: range.name.count, valuelen: range.value.count,
        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
    }
    return array.withUnsafeBufferPointer(body)
  }
}
