import CNghttp2
import COpenSSL
import Foundation
import Infrastructure

/// What every connection shares: the handler, where later answers come back, the
/// nghttp2 callbacks. Made and used on the event loop's thread only.
final class ConnectionContext {
  let handler: (HTTP2Request) -> HTTP2Reply
  let completions: Completions
  let callbacks: HTTP2Callbacks
  let settings: HTTP2Server.Settings
  let logger: Logger

  init(
    handler: @escaping (HTTP2Request) -> HTTP2Reply, completions: Completions,
    callbacks: HTTP2Callbacks, settings: HTTP2Server.Settings, logger: Logger
  ) {
    self.handler = handler
    self.completions = completions
    self.callbacks = callbacks
    self.settings = settings
    self.logger = logger
  }
}

/// One client connection: a non-blocking socket, its TLS session (OpenSSL) and its HTTP/2
/// session (nghttp2, fed with `mem_recv` and drained with `mem_send`). Only the event loop
/// calls it; nghttp2's callbacks re-enter it synchronously from those two calls.
///
/// Every TLS call starts with `ERR_clear_error()`: `SSL_get_error` reads the thread's
/// error queue, which all connections share, so a failure left by one connection (a
/// close_notify to a peer already gone) would make another's WANT_READ look fatal.
final class Connection {
  enum State {
    case handshaking
    case open
    case closed
  }

  let id: Int
  let socket: Int32
  private(set) var state = State.handshaking
  let context: ConnectionContext
  private let ssl: OpaquePointer
  var session: OpaquePointer?
  var streams: [Int32: HTTP2Stream] = [:]
  /// Slow answers not yet due, earliest first.
  var delayed: [DelayedAnswer] = []
  /// Streams whose answer is being worked out by a task, and whom to tell how they ended.
  var awaiting: [Int32: ((HTTP2Outcome) -> Void)?] = [:]
  /// The last stream id of the GOAWAY this side submitted, if any. A request on a later
  /// stream may still complete before the GOAWAY is out; the client will see it refused
  /// and retry it elsewhere, so it must not be handled (nor use up a counted behaviour).
  var goawayLastStream: Int32?
  /// Set by a `drop` reply inside an nghttp2 callback, where the session cannot be
  /// deleted; acted on when `mem_recv` returns.
  var dropRequested = false
  /// TLS wants the socket writable before it can go on (a short write, or a handshake step).
  private var tlsWantsWrite = false
  /// Bytes from `mem_send` that SSL_write has not taken yet.
  private var output: [UInt8] = []
  private var outputOffset = 0
  private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 1)

  struct DelayedAnswer {
    let due: ContinuousClock.Instant
    let stream: Int32
    let response: HTTPResponse
    let thenGoaway: Bool
    let ended: ((HTTP2Outcome) -> Void)?
  }

  init?(id: Int, socket: Int32, tls: TLSContext, context: ConnectionContext) {
    guard let ssl = tls.session(socket: socket) else { return nil }
    self.id = id
    self.socket = socket
    self.ssl = ssl
    self.context = context
  }

  deinit {
    close(graceful: false)
    readBuffer.deallocate()
  }

  /// The poll(2) events this connection waits for.
  var pollEvents: Int16 {
    guard state != .closed else { return 0 }
    var events = Int16(POLLIN)
    if tlsWantsWrite || outputOffset < output.count { events |= Int16(POLLOUT) }
    return events
  }

  /// The socket is readable, writable or in error: make what progress can be made.
  func service() {
    if state == .handshaking { handshake() }
    if state == .open {
      receive()
      send()
    }
    finishIfDone()
  }

  private func handshake() {
    ERR_clear_error()
    let result = SSL_do_handshake(ssl)
    guard result == 1 else {
      switch SSL_get_error(ssl, result) {
      case SSL_ERROR_WANT_READ: tlsWantsWrite = false
      case SSL_ERROR_WANT_WRITE: tlsWantsWrite = true
      default:
        context.logger.debug(
          "TLS handshake failed", ["connection": id, "error": HTTP2ServerError.openSSLErrors()])
        close(graceful: false)
      }
      return
    }
    tlsWantsWrite = false
    var protocolName: UnsafePointer<UInt8>?
    var length: UInt32 = 0
    SSL_get0_alpn_selected(ssl, &protocolName, &length)
    guard let protocolName,
      String(decoding: UnsafeBufferPointer(start: protocolName, count: Int(length)), as: UTF8.self)
        == "h2"
    else {
      // A client without ALPN; one offering only other protocols already got an alert.
      context.logger.debug("client did not negotiate h2", ["connection": id])
      close(graceful: false)
      return
    }
    do {
      try startHTTP2()
      state = .open
    } catch {
      context.logger.warning("cannot start HTTP/2", ["connection": id, "error": error.description])
      close(graceful: false)
    }
  }

  /// Reads everything TLS has for us and feeds it to nghttp2.
  private func receive() {
    while state == .open, let session {
      ERR_clear_error()
      let count = SSL_read(ssl, readBuffer.baseAddress, Int32(readBuffer.count))
      guard count > 0 else {
        switch SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_READ: return
        case SSL_ERROR_WANT_WRITE: tlsWantsWrite = true
        default: close(graceful: false)  // the peer went away, or TLS broke
        }
        return
      }
      let consumed = nghttp2_session_mem_recv(
        session, readBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int(count))
      if dropRequested {
        close(graceful: false)
        return
      }
      if consumed < 0 {
        // nghttp2 has queued a GOAWAY naming the protocol error; send it, then close.
        context.logger.debug(
          "HTTP/2 protocol error",
          ["connection": id, "error": String(cString: nghttp2_strerror(Int32(consumed)))])
        send()
        close(graceful: true)
        return
      }
    }
  }

  /// Moves frames from nghttp2 through TLS to the socket until either has nothing more
  /// to give or the socket is full.
  func send() {
    while state == .open, let session {
      if outputOffset < output.count {
        ERR_clear_error()
        let written = output.withUnsafeBytes { bytes in
          SSL_write(ssl, bytes.baseAddress! + outputOffset, Int32(bytes.count - outputOffset))
        }
        guard written > 0 else {
          switch SSL_get_error(ssl, written) {
          case SSL_ERROR_WANT_WRITE: tlsWantsWrite = true
          case SSL_ERROR_WANT_READ: break
          default: close(graceful: false)
          }
          return
        }
        outputOffset += Int(written)
        continue
      }
      tlsWantsWrite = false
      output.removeAll(keepingCapacity: true)
      outputOffset = 0
      // Gather several frames per SSL_write: fewer TLS records and system calls.
      while output.count < 65_536 {
        var data: UnsafePointer<UInt8>?
        let count = nghttp2_session_mem_send(session, &data)
        if count < 0 {
          close(graceful: false)
          return
        }
        guard count > 0, let data else { break }
        output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
      }
      if output.isEmpty { return }
    }
  }

  /// Closes once HTTP/2 is finished with the connection: after GOAWAY both ways and no
  /// stream left, or after the peer's GOAWAY.
  func finishIfDone() {
    guard state == .open, let session, outputOffset >= output.count else { return }
    if nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0 {
      close(graceful: true)
    }
  }

  /// Ends the connection. Graceful: TLS close_notify first (best effort, non-blocking).
  /// Answers still waiting, slow or worked out by a task, end as abandoned.
  func close(graceful: Bool) {
    guard state != .closed else { return }
    state = .closed
    for waiting in delayed { waiting.ended?(.abandoned) }
    delayed.removeAll()
    for ended in awaiting.values { ended?(.abandoned) }
    awaiting.removeAll()
    // nghttp2_session_del calls no callbacks; the streams (and the response bodies nghttp2
    // might read) are freed only after it.
    if let session { nghttp2_session_del(session) }
    session = nil
    streams.removeAll()
    if graceful {
      SSL_shutdown(ssl)
      ERR_clear_error()
    }
    SSL_free(ssl)
    Foundation.close(socket)
  }
}
