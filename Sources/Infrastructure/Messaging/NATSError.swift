import CNats

/// What went wrong talking to NATS.
public enum NATSError: Error, CustomStringConvertible, Sendable {
  /// A nats.c call failed; `status` is the library's own text for the code.
  case call(operation: String, status: String)
  /// A request got no reply in time.
  case timeout(subject: String)
  /// Nobody listens on the subject (the server's no-responders status).
  case noResponders(subject: String)
  /// The connection was closed by this process.
  case closed
  /// The waiting task was cancelled (the process is stopping).
  case cancelled(subject: String)
  /// The reply came, but the requester's admission refused its size (a memory budget):
  /// it was dropped without being copied.
  case replyRefused(subject: String, bytes: Int)

  init(_ operation: String, _ status: natsStatus) {
    self = .call(operation: operation, status: String(cString: natsStatus_GetText(status)))
  }

  public var description: String {
    switch self {
    case .call(let operation, let status): return "NATS \(operation) failed: \(status)"
    case .timeout(let subject): return "NATS request on \(subject) timed out"
    case .noResponders(let subject): return "NATS request on \(subject) found no responders"
    case .closed: return "NATS connection closed"
    case .cancelled(let subject): return "NATS request on \(subject) cancelled"
    case .replyRefused(let subject, let bytes):
      return "NATS reply to \(subject) refused: \(bytes) bytes over the receiver's budget"
    }
  }
}

/// Throws unless `status` is `NATS_OK`.
func check(_ status: natsStatus, _ operation: String) throws(NATSError) {
  guard status == NATS_OK else { throw NATSError(operation, status) }
}
