import Events
import Infrastructure

/// Why an ingress message ends as `alarm.rejected`: its payload broke the contract, or
/// PostgreSQL refused what it holds, or it kept failing in ways nobody can class.
struct IngressRejection: Sendable {
  /// The `reason` of `alarm.rejected`.
  let reason: String
  // What else the event records when known (docs/interfaces.md#event-types): the error's
  // SQLSTATE class, code and constraint, and how often an undecidable alarm was tried.
  var errorClass: String?
  var sqlState: String?
  var constraint: String?
  var attempts: Int?

  init(_ rejection: IngressAlarm.Rejection) {
    reason = rejection.rawValue
  }

  private init(reason: String) {
    self.reason = reason
  }

  /// PostgreSQL refused the alarm's content (a data error, a constraint it breaks): retrying cannot
  /// help (docs/interfaces.md#ingress-alarm).
  static func refused(_ error: DatabaseError) -> IngressRejection {
    var rejection = IngressRejection(reason: "refused_by_database")
    rejection.describe(error)
    return rejection
  }

  /// The alarm failed `attempts` times with errors that are neither an outage nor its
  /// content; it is given up so that it cannot hold its mower's later alarms for ever.
  static func undecidable(after error: any Error, attempts: Int) -> IngressRejection {
    var rejection = IngressRejection(reason: "undecidable")
    if let error = error as? DatabaseError {
      rejection.describe(error)
    } else {
      rejection.errorClass = String(describing: type(of: error))
    }
    rejection.attempts = attempts
    return rejection
  }

  private mutating func describe(_ error: DatabaseError) {
    if let state = error.sqlState {
      errorClass = String(state.prefix(2))
      sqlState = state
    } else {
      errorClass = "database"
    }
    constraint = error.constraint
  }
}
