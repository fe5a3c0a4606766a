import Events
import Infrastructure
import TestSupport

/// The photo stage's outcomes so far, from the event log: photos stored, and failures by
/// reason. The photo target asks that none fail for a worker's own slowness
/// (`store_overloaded`, `worker_lost`, `store_rejected`); the others are the camera's.
struct PhotoOutcomes {
  var stored = 0
  var failed: [String: Int] = [:]

  /// Reasons that are the photo stage's own doing, not the camera's.
  static let ownReasons = ["store_overloaded", "worker_lost", "store_rejected"]

  static func read(db: TestDatabase) async throws -> PhotoOutcomes {
    var outcomes = PhotoOutcomes()
    for row in try await db.pool.query(
      """
      SELECT type, coalesce(data->>'reason', '') AS reason, count(*) AS n FROM events
      WHERE type IN (\(EventType.photoCaptured.rawValue), \(EventType.photoFailed.rawValue))
      GROUP BY 1, 2
      """)
    {
      let count = try row.int("n")
      if try row.string("type") == EventType.photoCaptured.rawValue {
        outcomes.stored += count
      } else {
        outcomes.failed[try row.string("reason"), default: 0] += count
      }
    }
    return outcomes
  }

  static func - (end: PhotoOutcomes, start: PhotoOutcomes) -> PhotoOutcomes {
    var difference = PhotoOutcomes(stored: end.stored - start.stored)
    for (reason, count) in end.failed {
      difference.failed[reason] = count - start.failed[reason, default: 0]
    }
    return difference
  }

  var failedTotal: Int { failed.values.reduce(0, +) }
  var failedOwn: Int { Self.ownReasons.reduce(0) { $0 + failed[$1, default: 0] } }

  /// "stored/failed (own)".
  var cell: String { "\(stored)/\(failedTotal) (\(failedOwn))" }
}
