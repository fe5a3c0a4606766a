import Synchronization

/// The port a server is bound to, for routes made before it started (a test double's URLs
/// name it). Harnesses learn the port from the server's `listening` line, which comes
/// before the service can store it here: a request that arrives in between waits for it
/// instead of being refused (a loaded CI run caught a 503 in that moment).
public final class BoundPort: Sendable {
  private let port = Atomic<Int>(0)

  public init() {}

  public func store(_ port: Int) { self.port.store(port, ordering: .releasing) }

  /// The port; nil before the server has one.
  public var value: Int? {
    let port = port.load(ordering: .acquiring)
    return port == 0 ? nil : port
  }

  /// `reply` at once when the port is known, else once it is (the server's work deadline
  /// bounds the wait).
  public func whenKnown(_ reply: @escaping @Sendable () -> HTTPReply) -> HTTPReply {
    if value != nil { return reply() }
    return .later {
      while self.value == nil { try? await Task.sleep(for: .milliseconds(1)) }
      switch reply() {
      case .now(let response): return response
      case .later(let work): return await work()
      }
    }
  }
}
