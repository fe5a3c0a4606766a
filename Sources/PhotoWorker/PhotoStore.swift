import Events
import FoundationEssentials
import Infrastructure

/// The PhotoWorker's reads and writes: claiming reservations with a lease, renewing the
/// leases of requests in flight, and completing a reservation with its photo or failure
/// marker, retention enforced in the same transaction (ADR 0007).
struct PhotoStore: Sendable {
  let pool: DatabasePool
  let images: ImageStore
  let photoTimeoutSeconds: Int
  /// A lease lasts this long unless renewed; renewals come every `leaseSeconds / 2.5`.
  let leaseSeconds: Double
  let followUps: PhotoFollowUps
  private let eventLog = EventLog()

  init(
    pool: DatabasePool, images: ImageStore, photoTimeoutSeconds: Int, leaseSeconds: Double = 5,
    followUps: PhotoFollowUps = PhotoFollowUps(windowSeconds: 600)
  ) {
    self.pool = pool
    self.images = images
    self.photoTimeoutSeconds = photoTimeoutSeconds
    self.leaseSeconds = leaseSeconds
    self.followUps = followUps
  }

  /// Claims up to `limit` pending reservations nobody holds (never claimed, or whose
  /// holder's lease ran out), oldest first, and records `photo.requested` for those that
  /// can still be useful.
  func claim(limit: Int) async throws -> [PhotoClaim] {
    let lease = leaseSeconds
    let timeout = photoTimeoutSeconds
    let eventLog = eventLog
    return try await pool.withTransaction { tx in
      let rows = try tx.query(
        """
        WITH candidates AS (
          SELECT image_id FROM photo_reservations
          WHERE state = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at < now())
          ORDER BY created_at
          LIMIT \(limit)
          FOR UPDATE SKIP LOCKED
        )
        UPDATE photo_reservations r
        SET lease_token = nextval('lease_tokens'),
            lease_expires_at = now() + make_interval(secs => \(lease)),
            attempts = r.attempts + 1
        FROM candidates c WHERE r.image_id = c.image_id
        RETURNING r.image_id, r.event_id, r.mower_id, r.lease_token, r.attempts,
          extract(epoch FROM r.created_at + make_interval(secs => \(timeout)) - now())::float8
            AS remaining
        """)
      let claims = try rows.map { row in
        PhotoClaim(
          imageID: try row.uuid("image_id"), eventID: try row.uuid("event_id"),
          mowerID: try row.string("mower_id"), leaseToken: Int64(try row.int("lease_token")),
          attempt: try row.int("attempts"),
          remainingSeconds: try row.optionalDouble("remaining") ?? 0)
      }
      try eventLog.append(
        claims.filter(\.isStillUseful).map { claim in
          NewEvent(
            PhotoRequested(
              imageID: claim.imageID, mowerID: claim.mowerID, attempt: claim.attempt,
              timeoutSeconds: Int(min(Double(timeout), claim.remainingSeconds).rounded(.down))),
            correlationID: claim.eventID)
        }, in: tx)
      return claims
    }
  }

  /// Extends the leases of requests still in flight. A row that an outcome's transaction
  /// holds is skipped, not waited for: it is ending (or, should that transaction fail, is
  /// renewed next time, well within its lease). Waiting would hold every other row's lock
  /// meanwhile, and a group of outcomes locking its rows in another order would deadlock
  /// with it, failing the renewal and letting hundreds of leases lapse at once.
  func renew(_ tokens: [Int64]) async throws {
    guard !tokens.isEmpty else { return }
    try await pool.query(
      """
      UPDATE photo_reservations SET lease_expires_at = now() + make_interval(secs => \(leaseSeconds))
      WHERE image_id IN (
        SELECT image_id FROM photo_reservations
        WHERE state = 'pending'
          AND lease_token = ANY(\(PostgresArray(tokens.map { String($0) }))::bigint[])
        FOR UPDATE SKIP LOCKED)
      """)
  }

  enum Completion: Sendable, Equatable {
    /// Written, with this many photo follow-ups queued for the other platforms' workers.
    case stored(followUps: Int)
    /// Another worker holds the reservation now, or it already ended: nothing written.
    case stale
  }

  /// Ends the reservation with `result`. The first definitive outcome wins: the holder of
  /// the current lease, or anyone once that lease has run out without a new holder.
  func complete(_ claim: PhotoClaim, result: PhotoResult, latencySeconds: Double) async throws
    -> Completion
  {
    try await complete(
      PhotoCompletions(
        PhotoCompletion(claim: claim, result: result, latencySeconds: latencySeconds)))[0]
  }

  /// Ends several reservations in one transaction, each as `complete` would, with one
  /// follow-up statement and one retention pass for all of them: the image table's lock and
  /// the commit are paid once. Any failure fails them all; nothing of the group is written.
  func complete(_ group: PhotoCompletions) async throws -> [Completion] {
    let images = images
    let eventLog = eventLog
    let followUps = followUps
    return try await pool.withTransaction { tx in
      var ended: [(item: PhotoCompletion, event: NewEvent)?] = []
      for item in group.items {
        ended.append(try Self.end(item, images: images, tx).map { (item, $0) })
      }
      var captured: [UUID: UUID] = [:]
      for case (let item, _)? in ended {
        if case .captured = item.result { captured[item.claim.imageID] = item.claim.eventID }
      }
      let queued = try followUps.queue(captured: captured, tx: tx)
      var events: [NewEvent] = []
      let completions = ended.map { ended -> Completion in
        guard let (item, event) = ended else { return .stale }
        let itemFollowUps = queued[item.claim.imageID] ?? []
        events.append(event)
        events += itemFollowUps
        return .stored(followUps: itemFollowUps.count)
      }
      try eventLog.append(events, in: tx)
      // Last: retention, whose lock is then held only until the commit.
      if completions.contains(where: { $0 != .stale }) { _ = try images.enforceRetention(tx) }
      return completions
    }
  }

  /// One reservation's end within the group's transaction: its row written and its
  /// outcome's event returned for the group's one append; nil when the reservation is no
  /// longer this claim's to end.
  private static func end(_ item: PhotoCompletion, images: ImageStore, _ tx: Transaction) throws
    -> NewEvent?
  {
    let claim = item.claim
    let state = if case .captured = item.result { "captured" } else { "failed" }
    let ended = try tx.query(
      """
      UPDATE photo_reservations
      SET state = \(state), finished_at = now(), lease_token = NULL, lease_expires_at = NULL
      WHERE image_id = \(claim.imageID) AND state = 'pending'
        AND (lease_token = \(claim.leaseToken) OR lease_expires_at < now())
      RETURNING image_id
      """)
    guard !ended.isEmpty else { return nil }
    let milliseconds = Int((item.latencySeconds * 1000).rounded())
    let event: NewEvent
    let jpeg: [UInt8]?
    let failureReason: String?
    switch item.result {
    case .captured(let bytes):
      (jpeg, failureReason) = (bytes, nil)
      event = NewEvent(
        PhotoCaptured(
          imageID: claim.imageID, bytes: bytes.count, captureMilliseconds: milliseconds,
          attempt: claim.attempt),
        correlationID: claim.eventID)
    case .failed(let reason, let detail):
      (jpeg, failureReason) = (nil, reason.rawValue)
      event = NewEvent(
        PhotoFailed(
          imageID: claim.imageID, reason: reason.rawValue,
          // Cleaned here too, whatever produced it: this is the last step before jsonb.
          detail: detail.map { FailureDetail.cleaned($0) },
          afterMilliseconds: milliseconds, attempt: claim.attempt),
        correlationID: claim.eventID)
    }
    try images.insertWithoutRetention(
      imageID: claim.imageID, eventID: claim.eventID, jpeg: jpeg, failureReason: failureReason,
      tx: tx)
    return event
  }
}
