/// What went wrong talking to PostgreSQL. Descriptions name the statement text and the
/// server's message, never the values bound to it.
public enum DatabaseError: Error, CustomStringConvertible, Sendable {
  /// The server could not be reached or the connection broke; worth retrying later.
  case connectionFailed(String)
  /// The server rejected a statement. `sqlState` is the five-character SQLSTATE code.
  case statementFailed(sqlState: String, message: String, statement: String)
  /// A row did not hold what the caller expected (a NULL, or text that does not parse).
  case decodingFailed(column: String, expected: String)
  /// The pool was asked for a connection after it was shut down.
  case poolClosed

  public var description: String {
    switch self {
    case .connectionFailed(let message):
      return "database connection failed: \(message)"
    case .statementFailed(let state, let message, let statement):
      let head = statement.split(separator: "\n").first.map(String.init) ?? ""
      return "database statement failed (\(state)): \(message) [\(head.prefix(80))]"
    case .decodingFailed(let column, let expected):
      return "database column \(column) is not \(expected)"
    case .poolClosed:
      return "database pool is closed"
    }
  }

  /// Whether the failure came from the connection rather than the statement, so that the
  /// caller should drop the connection and retry the unit of work later.
  public var isConnectionProblem: Bool {
    switch self {
    case .connectionFailed: return true
    case .statementFailed(let state, _, _):
      // Class 08: connection exception; 57P01..57P03: admin shutdown, crash, cannot connect.
      return state.hasPrefix("08") || state.hasPrefix("57P")
    default: return false
    }
  }

  /// Serialization failures and deadlocks: the transaction may simply be run again.
  public var isRetryableConflict: Bool {
    if case .statementFailed(let state, _, _) = self { return state == "40001" || state == "40P01" }
    return false
  }

  public var isUniqueViolation: Bool {
    if case .statementFailed(let state, _, _) = self { return state == "23505" }
    return false
  }

  /// "Cached plan must not change result type": the schema changed under a prepared
  /// statement (a migration by a newer replica); only a fresh connection prepares it anew.
  public var isStalePreparedStatement: Bool {
    if case .statementFailed(let state, _, _) = self { return state == "0A000" }
    return false
  }
}
