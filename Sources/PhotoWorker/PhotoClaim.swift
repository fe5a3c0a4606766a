import FoundationEssentials

/// A reservation this worker holds: its lease token fences it against a worker that lost
/// the lease, and `remainingSeconds` is how long a photo can still be useful.
struct PhotoClaim: Sendable {
  let imageID: UUID
  let eventID: UUID
  let mowerID: String
  let leaseToken: Int64
  let attempt: Int
  let remainingSeconds: Double

  /// A request needs at least this long to be worth making.
  static let minimumUsefulSeconds = 1.0

  var isStillUseful: Bool { remainingSeconds >= Self.minimumUsefulSeconds }
}
