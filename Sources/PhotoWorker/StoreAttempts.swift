import Events
import Infrastructure

/// How storing one capture's outcome goes on after PostgreSQL failed it, by the failure's
/// class (`DatabaseError.failureClass`, ENGINEERING.md section 4). Only an outage is
/// retried without end: an outcome retried forever for what it holds kept its lease, its
/// slot and its phone's URL at "not yet" for good (issue 20).
struct StoreAttempts {
  enum Next: Equatable {
    /// Store the same outcome again after a backoff.
    case retry
    /// Store a `store_rejected` failure marker instead, so the URL answers "never".
    case storeRejection
    /// Store nothing more: log it, and let the lease lapse.
    case giveUp
  }

  /// Failures of unknown class one outcome may meet before it is treated as refused.
  static let unknownFailuresAllowed = 5

  /// Whether the outcome now being stored is already the `store_rejected` marker.
  private(set) var storingRejection = false
  private var unknownFailures = 0

  /// - outage (PostgreSQL away, busy, shutting down; a lost race): retried, for as long as
  ///   it takes; the item is not at fault;
  /// - content (PostgreSQL refused what the item holds): the item ends at once;
  /// - unknown: retried until the `unknownFailuresAllowed`-th, then as content.
  /// Ending means the rejection marker; if that fails too, giving up.
  mutating func next(after failure: DatabaseFailureClass) -> Next {
    switch failure {
    case .outage:
      return .retry
    case .unknown:
      unknownFailures += 1
      if unknownFailures < Self.unknownFailuresAllowed { return .retry }
    case .content:
      break
    }
    if storingRejection { return .giveUp }
    storingRejection = true
    unknownFailures = 0
    return .storeRejection
  }

  /// The class of any error a store can throw: `DatabaseError` knows its own; anything
  /// else is unknown.
  static func failureClass(of error: any Error) -> DatabaseFailureClass {
    (error as? DatabaseError)?.failureClass ?? .unknown
  }

  /// What the `store_rejected` marker records: the outcome refused and PostgreSQL's code,
  /// never the server's message (which may quote the values refused).
  static func rejectionDetail(refusing result: PhotoResult, error: any Error) -> String {
    let outcome =
      switch result {
      case .captured: "captured"
      case .failed(let reason, _): reason.rawValue
      }
    guard let database = error as? DatabaseError else {
      return "storing \(outcome) failed: \(type(of: error))"
    }
    // Descriptions of the other cases hold no values (DatabaseError).
    guard let state = database.sqlState else { return "storing \(outcome) failed: \(database)" }
    let stateClass = String(state.prefix(2))
    var detail = "storing \(outcome) failed: SQLSTATE \(state), class \(stateClass)"
    if let name = Self.classNames[stateClass] { detail += " (\(name))" }
    if let constraint = database.constraint { detail += ", constraint \(constraint)" }
    return detail
  }

  private static let classNames = [
    "22": "data exception", "23": "integrity constraint violation",
    "54": "program limit exceeded",
  ]
}
