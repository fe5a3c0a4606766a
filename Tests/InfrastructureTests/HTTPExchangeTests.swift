import Testing

@testable import Infrastructure

/// A suspended request's answer is set once and handed over once; answered exchanges do not
/// stay alive in the deadline queue (the serving process once held every photo it had sent
/// for about 30 s, 1,024 requests at a time).
@Suite struct HTTPExchangeTests {
  static let connection = SendablePointer(OpaquePointer(bitPattern: 0x1000)!)

  @Test func theFirstAnswerWinsAndIsHandedOverOnce() {
    let exchange = HTTPExchange(target: "/x")
    #expect(exchange.finish(with: HTTPResponse(status: 200, body: [1, 2, 3])))
    #expect(!exchange.finish(with: .plain(503)))
    #expect(exchange.takeResponse()?.body == [1, 2, 3])
    #expect(exchange.takeResponse() == nil)
    #expect(exchange.state.withLock { $0.phase } == .answered)
    // Taken out, it is still answered: a late sweep must not resume it again.
    #expect(!exchange.finish(with: .plain(503)))
  }

  @Test func answeredRequestsAreNotKeptAliveByTheDeadlineQueue() {
    var queue = SuspendedQueue()
    weak var first: HTTPExchange?
    weak var last: HTTPExchange?
    do {
      let exchanges = (0..<100).map { HTTPExchange(target: "/photo/\($0)") }
      first = exchanges.first
      last = exchanges.last
      for exchange in exchanges {
        queue.append(SuspendedRequest(exchange: exchange, connection: Self.connection))
      }
      for exchange in exchanges {
        _ = exchange.finish(
          with: HTTPResponse(status: 200, body: [UInt8](repeating: 7, count: 1024)))
        queue.resumed()
      }
      #expect(queue.removeSuspended(before: .now - .seconds(60)).isEmpty)
    }
    #expect(queue.count == 0)
    #expect(first == nil)
    #expect(last == nil)
  }

  @Test func anUnansweredRequestPastItsDeadlineIsTakenOnce() {
    var queue = SuspendedQueue()
    let late = HTTPExchange(target: "/slow")
    let answered = HTTPExchange(target: "/fast")
    queue.append(SuspendedRequest(exchange: answered, connection: Self.connection))
    queue.append(SuspendedRequest(exchange: late, connection: Self.connection))
    _ = answered.finish(with: .plain(200))
    #expect(queue.removeSuspended(before: .now - .seconds(60)).isEmpty)
    let due = queue.removeSuspended(before: .now + .seconds(1))
    #expect(due.map(\.exchange.target) == ["/slow"])
    #expect(queue.removeSuspended(before: .now + .seconds(1)).isEmpty)
  }
}
