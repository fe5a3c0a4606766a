import CMicroHTTPD
import Synchronization

/// A request whose connection is suspended while its work runs. It is resumed exactly once:
/// by its work, or by the deadline sweep with a 503, whichever comes first; the loser's
/// answer is dropped.
struct SuspendedRequest: Sendable {
  let exchange: HTTPExchange
  /// libmicrohttpd allows MHD_resume_connection from any thread, and a suspended
  /// connection stays valid until it is resumed.
  let connection: SendablePointer
  let suspendedAt = ContinuousClock.now
}

/// The suspended requests in the order they were suspended. Every request has the same
/// allowance, so the oldest is always the next to pass its deadline: the sweep only ever
/// looks at the front, where it also drops the requests already answered.
struct SuspendedQueue: Sendable {
  private var entries: [SuspendedRequest] = []
  private var head = 0
  /// Suspended and not yet resumed.
  private(set) var count = 0

  mutating func append(_ request: SuspendedRequest) {
    entries.append(request)
    count += 1
  }

  mutating func resumed() { count -= 1 }

  /// Takes the entries suspended before `cutoff` and still unanswered; drops the answered
  /// ones at the front.
  mutating func removeSuspended(before cutoff: ContinuousClock.Instant) -> [SuspendedRequest] {
    var due: [SuspendedRequest] = []
    while head < entries.count {
      let front = entries[head]
      let answered = front.exchange.state.withLock { $0.resumed }
      guard answered || front.suspendedAt < cutoff else { break }
      if !answered { due.append(front) }
      head += 1
    }
    // Compacted often: an answered entry still holds its exchange (headers, target).
    if head > 64, head * 2 > entries.count {
      entries.removeFirst(head)
      head = 0
    }
    return due
  }
}

extension HTTPServerCore {
  func suspended(_ request: SuspendedRequest) {
    waiting.withLock { $0.append(request) }
  }

  var requestsSuspended: Int { waiting.withLock { $0.count } }

  /// Sets the answer and resumes the connection, unless the request was answered already.
  func resume(_ request: SuspendedRequest, with response: HTTPResponse) {
    guard request.exchange.finish(with: response) else { return }
    waiting.withLock { $0.resumed() }
    MHD_resume_connection(request.connection.pointer)
  }

  /// Answers 503 to every request suspended for longer than `workDeadline`. Work that does
  /// not listen for cancellation (a blocked libpq call) may go on; its answer is dropped.
  func sweepDeadlines() {
    let due = waiting.withLock { $0.removeSuspended(before: .now - workDeadline) }
    for request in due {
      resume(request, with: .plain(503))
    }
  }
}
