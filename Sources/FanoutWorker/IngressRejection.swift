import Events
import Infrastructure

/// Why an ingress message ends as `alarm.rejected`: its payload broke the contract, or
/// PostgreSQL refused what it holds, or it kept failing in ways nobody can class.
struct IngressRejection: Sendable {
  /// The `reason` of `alarm.rejected`.
  let reason: String
  /// What else the event records: the error's SQLSTATE class, code and constraint.
  let details: [String: any Sendable]

  init(_ rejection: IngressAlarm.Rejection) {
    reason = rejection.rawValue
    details = [:]
  }

  private init(reason: String, details: [String: any Sendable]) {
    self.reason = reason
    self.details = details
  }

  /// PostgreSQL refused the alarm's content (a data error, a constraint it breaks): retrying cannot
  /// help (docs/interfaces.md#ingress-alarm).
  static func refused(_ error: DatabaseError) -> IngressRejection {
    IngressRejection(reason: "refused_by_database", details: Self.details(of: error))
  }

  /// The alarm failed `attempts` times with errors that are neither an outage nor its
  /// content; it is given up so that it cannot hold its mower's later alarms for ever.
  static func undecidable(after error: any Error, attempts: Int) -> IngressRejection {
    var details: [String: any Sendable] =
      (error as? DatabaseError).map(Self.details(of:)) ?? [
        "error_class": String(describing: type(of: error))
      ]
    details["attempts"] = attempts
    return IngressRejection(reason: "undecidable", details: details)
  }

  private static func details(of error: DatabaseError) -> [String: any Sendable] {
    var details: [String: any Sendable] = [:]
    if let state = error.sqlState {
      details["error_class"] = String(state.prefix(2))
      details["sqlstate"] = state
    } else {
      details["error_class"] = "database"
    }
    if let constraint = error.constraint { details["constraint"] = constraint }
    return details
  }
}
