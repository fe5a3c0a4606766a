/// What went wrong talking to PostgreSQL. Descriptions name the statement text and the
/// server's message, never the values bound to it.
public enum DatabaseError: Error, CustomStringConvertible, Sendable {
  /// The server could not be reached or the connection broke; worth retrying later.
  case connectionFailed(String)
  /// The server rejected a statement. `sqlState` is the five-character SQLSTATE code;
  /// `constraint` the constraint it broke, as libpq reports it (`PG_DIAG_CONSTRAINT_NAME`).
  case statementFailed(sqlState: String, message: String, statement: String, constraint: String?)
  /// A row did not hold what the caller expected (a NULL, or text that does not parse).
  case decodingFailed(column: String, expected: String)
  /// The pool was asked for a connection after it was shut down.
  case poolClosed

  public var description: String {
    switch self {
    case .connectionFailed(let message):
      return "database connection failed: \(message)"
    case .statementFailed(let state, let message, let statement, _):
      let head = statement.split(separator: "\n").first.map(String.init) ?? ""
      return "database statement failed (\(state)): \(message) [\(head.prefix(80))]"
    case .decodingFailed(let column, let expected):
      return "database column \(column) is not \(expected)"
    case .poolClosed:
      return "database pool is closed"
    }
  }

  /// The SQLSTATE of a refused statement; nil for the other failures.
  public var sqlState: String? {
    if case .statementFailed(let state, _, _, _) = self { return state }
    return nil
  }

  /// The constraint a refused statement broke, when PostgreSQL named one.
  public var constraint: String? {
    if case .statementFailed(_, _, _, let constraint) = self { return constraint }
    return nil
  }

  /// Whether the failure came from the connection rather than the statement, so that the
  /// caller should drop the connection and retry the unit of work later.
  public var isConnectionProblem: Bool {
    switch self {
    case .connectionFailed: return true
    case .statementFailed(let state, _, _, _):
      // Class 08: connection exception; 57P01..57P03: admin shutdown, crash, cannot connect;
      // 25006: a read-only standby, which a failover leaves behind.
      return state.hasPrefix("08") || state.hasPrefix("57P") || state == "25006"
    default: return false
    }
  }

  /// Serialization failures and deadlocks: the transaction may simply be run again.
  public var isRetryableConflict: Bool {
    guard let state = sqlState else { return false }
    return state == "40001" || state == "40P01"
  }

  public var isUniqueViolation: Bool { sqlState == "23505" }

  /// "Cached plan must not change result type": the schema changed under a prepared
  /// statement (a migration by a newer replica); only a fresh connection prepares it anew.
  public var isStalePreparedStatement: Bool { sqlState == "0A000" }

  /// How a unit of work that failed with this error should go on.
  public var failureClass: DatabaseFailureClass {
    if isConnectionProblem { return .outage }
    switch self {
    case .connectionFailed, .poolClosed: return .outage
    case .decodingFailed: return .unknown
    case .statementFailed(let state, _, _, _):
      if isRetryableConflict || isStalePreparedStatement { return .outage }
      // 53: insufficient resources (disk full, too many connections): the server's state,
      // not the input's; 55P03 a lock not available; 57014 a cancelled statement.
      if state.hasPrefix("53") || state == "55P03" || state == "57014" { return .outage }
      // 22: data exception (a date out of range, a NUL byte, bad encoding); 23: an
      // integrity constraint the input breaks; 54: a program limit the input exceeds.
      if state.hasPrefix("22") || state.hasPrefix("23") || state.hasPrefix("54") {
        return .content
      }
      return .unknown
    }
  }
}

/// The three ways a stage treats a failed unit of work (see `DatabaseError.failureClass`).
public enum DatabaseFailureClass: String, Sendable {
  /// PostgreSQL is away, busy or shutting down, or the transaction lost a race: retry the
  /// same work later, for as long as it takes; the item is not at fault.
  case outage
  /// PostgreSQL refused what this item holds: retrying cannot help; end the item now.
  case content
  /// Neither is known: retry a bounded number of times, then give the item up.
  case unknown
}
