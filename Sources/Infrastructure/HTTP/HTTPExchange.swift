import Synchronization

/// One request between libmicrohttpd's callbacks. The URI callback creates it with one
/// retain that libmicrohttpd owns (released by the completed callback); a task doing the
/// request's work holds its own reference until it has resumed the connection.
final class HTTPExchange: Sendable {
  enum Phase: Sendable {
    /// Before the first call of the access handler.
    case fresh
    /// Receiving the body, if any; answered at the final call.
    case body
    /// Suspended while a task works; its response is queued at the call after resuming.
    case waiting
    case answered
  }

  struct State: Sendable {
    var phase = Phase.fresh
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    var bodyTooLarge = false
    /// Set once, by the work or by the deadline sweep, whichever came first.
    var resumed = false
    /// The answer of a resumed request until it is handed to libmicrohttpd (which copies
    /// it); dropped then, so a photo is not kept for as long as the exchange is.
    var response: HTTPResponse?
    var route = HTTPRouter.unmatched
  }

  /// The request target exactly as sent.
  let target: String
  let started = ContinuousClock.now
  /// libmicrohttpd calls for one connection come from one thread at a time; the lock
  /// orders them with the task that fills in the response.
  let state = Mutex(State())

  init(target: String) { self.target = target }

  /// Sets the response of a suspended request unless one is set already (its work and its
  /// deadline race); true for the one caller that must then resume the connection.
  func finish(with response: HTTPResponse) -> Bool {
    state.withLock { state in
      guard !state.resumed else { return false }
      state.resumed = true
      state.response = response
      return true
    }
  }

  /// The answer to queue after resuming, taken out of the exchange: the suspended-request
  /// queue may keep the exchange for a while after it was answered (issue 9: the serving
  /// process held every photo it had sent for about 30 s).
  func takeResponse() -> HTTPResponse? {
    state.withLock { state in
      state.phase = .answered
      defer { state.response = nil }
      return state.response
    }
  }
}
