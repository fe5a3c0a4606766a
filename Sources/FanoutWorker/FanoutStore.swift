import Events
import FoundationEssentials
import Infrastructure

/// Takes the decisions about ingress messages, a batch of them in one transaction: the
/// facts, the state they describe and the next stages' work commit together or not at all
/// (ADR 0002, ADR 0039).
struct FanoutStore: Sendable {
  let pool: DatabasePool
  let rules: DecisionRules
  let subjects: Subjects
  let eventLog = EventLog()
  /// Shut by `DeliveryOffers` when the APNs stage refuses an offer.
  var handoffGate = HandoffGate()

  func handle(
    subject: String, payload: [UInt8], streamSequence: UInt64, receivedAt: Date, storedAt: Date
  ) async throws -> FanoutOutcome {
    try await handle(
      IngressAlarm.parse(subject: subject, subjects: subjects, payload: payload),
      subject: subject, payload: payload, streamSequence: streamSequence, receivedAt: receivedAt,
      storedAt: storedAt)
  }

  /// One message already parsed, alone: rejected when it did not read, else decided in a
  /// transaction of its own.
  func handle(
    _ parsed: Result<IngressAlarm, IngressAlarm.Rejection>, subject: String, payload: [UInt8],
    streamSequence: UInt64, receivedAt: Date, storedAt: Date
  ) async throws -> FanoutOutcome {
    switch parsed {
    case .failure(let rejection):
      return try await reject(
        IngressRejection(rejection), subject: subject, payload: payload,
        streamSequence: streamSequence)
    case .success(let alarm):
      return try await decideAlone(
        PendingAlarm(
          alarm: alarm, streamSequence: streamSequence, receivedAt: receivedAt,
          storedAt: storedAt))
    }
  }

  /// Decides one alarm in a transaction of its own: the first attempt at low load, and
  /// every attempt after a failed batch (ADR 0039).
  func decideAlone(_ pending: PendingAlarm) async throws -> FanoutOutcome {
    do {
      return try await decide(DecisionBatch(pending))[0]
    } catch let error as DatabaseError
      where error.isUniqueViolation
      && (error.constraint == "ingress_messages_pkey" || error.constraint == "alarms_pkey")
    {
      // Committed a moment ago by another replica, past this one's `seen` check.
      return FanoutOutcome(
        kind: .alreadyHandled, correlationID: pending.alarm.eventID, mowerID: nil)
    }
  }

  /// Records that a message was rejected, once per correlation id: a redelivery, or the
  /// same payload published again, records nothing new.
  func reject(
    _ rejection: IngressRejection, subject: String, payload: [UInt8], streamSequence: UInt64
  ) async throws -> FanoutOutcome {
    let correlationID = Self.correlationID(
      subject: subject, payload: payload, streamSequence: streamSequence)
    let mowerID = Self.mowerID(fromSubject: subject, subjects: subjects)
    let event = NewEvent(
      AlarmRejected(
        reason: rejection.reason, subject: CleanText.clean(subject, maximumCharacters: 256),
        mowerID: mowerID, streamSequence: streamSequence, payloadBytes: payload.count,
        payloadSHA256: Digest.sha256Hex(payload), errorClass: rejection.errorClass,
        sqlState: rejection.sqlState, constraint: rejection.constraint,
        attempts: rejection.attempts),
      correlationID: correlationID)
    let recorded = try await pool.withTransaction { tx in
      let inserted = try tx.query(
        """
        INSERT INTO ingress_messages (stream_seq, correlation_id, outcome)
        VALUES (\(Int64(streamSequence)), \(correlationID), 'rejected')
        ON CONFLICT (correlation_id) DO NOTHING
        RETURNING correlation_id
        """)
      guard !inserted.isEmpty else { return false }
      try eventLog.append([event], in: tx)
      return true
    }
    return FanoutOutcome(
      kind: recorded ? .rejected : .alreadyHandled, correlationID: correlationID,
      mowerID: mowerID, detail: rejection.reason)
  }

  /// Gives deliveries whose handoff no APNs worker took back to the claim path, at once
  /// rather than when their lease lapses; their first attempt is undone, none was made.
  ///
  /// The lease token alone says the delivery is still this handoff's and queued: the one
  /// statement that ends a delivery (`DeliveryStore.finish`) clears it. Asking for
  /// `state = 'queued'` as well let the planner, before autovacuum had analysed a young
  /// `deliveries`, answer each release by reading the whole `deliveries_due` index; with no
  /// APNs worker answering, queued deliveries pile up and the fan-out slowed down as the
  /// outage went on (docs/benchmarks.md, "the fan-out's release").
  func release(_ handoff: DeliveryHandoff) async throws {
    try await pool.query(
      """
      UPDATE deliveries SET lease_token = NULL, lease_expires_at = NULL, attempts = attempts - 1
      WHERE delivery_id = ANY(\(PostgresArray(handoff.deliveries.map(\.deliveryID)))::uuid[])
        AND lease_token = \(handoff.leaseToken)
      """)
  }

  /// The alarm's own `event_id` when the payload carries a usable one: the idempotency key
  /// (docs/interfaces.md#ingress-alarm). A message without one is no alarm, just a fact to record
  /// once per delivery of it: an id derived from its subject, bytes and stream sequence, so that a
  /// redelivery correlates the same way and the same bytes published twice count twice.
  static func correlationID(subject: String, payload: [UInt8], streamSequence: UInt64) -> UUID {
    if let eventID = IngressAlarm.eventIDIfAny(in: payload) { return eventID }
    let digest = Digest.sha256Hex(Array(subject.utf8) + [0] + payload)
    return Digest.uuid(from: "mowdeck.ingress.\(streamSequence).\(digest)")
  }

  /// The mower a subject names, cleaned for the event log; nil for another subject.
  static func mowerID(fromSubject subject: String, subjects: Subjects) -> String? {
    guard subject.hasPrefix(subjects.alarmSubjectPrefix) else { return nil }
    return CleanText.clean(
      subject.dropFirst(subjects.alarmSubjectPrefix.count), maximumCharacters: 200)
  }
}
