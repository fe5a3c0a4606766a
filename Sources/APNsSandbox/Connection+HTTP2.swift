import CNghttp2
import CSandboxShim
import Foundation

/// The HTTP/2 side of a connection: the session, the streams as nghttp2 reports them, and
/// the answers (at once, after a delay, with or instead of a GOAWAY, or none).
extension Connection {
  func startHTTP2() throws(SandboxError) {
    var created: OpaquePointer?
    let user = Unmanaged.passUnretained(self).toOpaque()
    guard nghttp2_session_server_new(&created, context.callbacks.pointer, user) == 0,
      let created
    else { throw SandboxError(.http2, detail: "nghttp2_session_server_new") }
    session = created
    var settings = [
      nghttp2_settings_entry(
        settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
        value: context.maxConcurrentStreams)
    ]
    let result = nghttp2_submit_settings(
      created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    guard result == 0 else {
      throw SandboxError(.http2, detail: String(cString: nghttp2_strerror(result)))
    }
  }

  // MARK: nghttp2 callbacks (see HTTP2Callbacks)

  func streamBegan(_ id: Int32) {
    streams[id] = HTTP2Stream(id: id)
  }

  func header(stream id: Int32, name: String, value: String) {
    streams[id]?.request.addHeader(name: name, value: value)
  }

  func data(stream id: Int32, _ chunk: UnsafeRawBufferPointer) {
    streams[id]?.request.appendBody(chunk)
  }

  func requestComplete(stream id: Int32) {
    guard let stream = streams[id] else { return }
    let exchange = context.handler.decide(stream.request, now: Date())
    switch exchange.delivery {
    case .drop:
      context.recorder?.record(exchange, outcome: .dropped, connection: self.id, stream: id)
      dropRequested = true
    case .goawayInstead:
      context.recorder?.record(exchange, outcome: .refused, connection: self.id, stream: id)
      // A last stream id below this one tells the client this request was not processed;
      // nghttp2 closes it (REFUSED_STREAM) once the GOAWAY is sent.
      submitGoaway(lastStream: max(0, id - 2))
    case .answer, .answerThenGoaway:
      if exchange.delayMilliseconds > 0 {
        let due = ContinuousClock.now + .milliseconds(exchange.delayMilliseconds)
        let index = delayed.firstIndex { $0.due > due } ?? delayed.endIndex
        delayed.insert(DelayedAnswer(due: due, stream: id, exchange: exchange), at: index)
      } else {
        respond(stream, exchange)
      }
    }
  }

  func streamClosed(_ id: Int32) {
    if let index = delayed.firstIndex(where: { $0.stream == id }) {
      let waiting = delayed.remove(at: index)
      context.recorder?.record(
        waiting.exchange, outcome: .abandoned, connection: self.id, stream: id)
    }
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
        respond(stream, first.exchange)
        answered = true
      }
    }
    if answered {
      send()
      finishIfDone()
    }
  }

  private func respond(_ stream: HTTP2Stream, _ exchange: Exchange) {
    guard let session else { return }
    let body = exchange.answer.body
    var headers = [(":status", String(exchange.answer.status)), ("apns-id", exchange.apnsID)]
    if !body.isEmpty {
      headers.append(("content-type", "application/json"))
      headers.append(("content-length", String(body.count)))
    }
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
    context.recorder?.record(exchange, outcome: .answered, connection: id, stream: stream.id)
    if exchange.delivery == .answerThenGoaway {
      // Every stream the client opened so far is still answered; newer ones are refused.
      submitGoaway(lastStream: nghttp2_session_get_last_proc_stream_id(session))
    }
  }

  private func submitGoaway(lastStream: Int32) {
    guard let session else { return }
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
