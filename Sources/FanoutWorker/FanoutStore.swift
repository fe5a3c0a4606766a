import Events
import FoundationEssentials
import Infrastructure

/// Takes the decision about one ingress message in one transaction: the facts, the state
/// they describe and the next stages' work commit together or not at all (ADR 0002).
struct FanoutStore: Sendable {
  let pool: DatabasePool
  let rules: DecisionRules
  let subjects: Subjects
  let eventLog = EventLog()

  func handle(
    subject: String, payload: [UInt8], streamSequence: UInt64, receivedAt: Date
  ) async throws -> FanoutOutcome {
    do {
      switch IngressAlarm.parse(subject: subject, subjects: subjects, payload: payload) {
      case .failure(let rejection):
        return try await reject(
          IngressRejection(rejection), subject: subject, payload: payload,
          streamSequence: streamSequence)
      case .success(let alarm):
        return try await decide(alarm, streamSequence: streamSequence, receivedAt: receivedAt)
      }
    } catch let error as DatabaseError
      where error.isUniqueViolation
      && (error.constraint == "ingress_messages_pkey" || error.constraint == "alarms_pkey")
    {
      // Committed a moment ago by another replica, past this one's `seen` check.
      return FanoutOutcome(
        kind: .alreadyHandled,
        correlationID: Self.correlationID(
          subject: subject, payload: payload, streamSequence: streamSequence), mowerID: nil)
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

  private func decide(_ alarm: IngressAlarm, streamSequence: UInt64, receivedAt: Date)
    async throws -> FanoutOutcome
  {
    let time = DecisionRules.decisionTime(occurredAt: alarm.occurredAt, receivedAt: receivedAt)
    return try await pool.withTransaction { tx in
      // The row lock serialises every decision about this mower, across replicas; the
      // decision reads only the locked row. A duplicate racing on another replica past the
      // `seen` check fails on the alarms primary key, and its retry finds it seen.
      let row = try tx.query(
        """
        WITH locked AS (
          INSERT INTO mower_state (mower_id) VALUES (\(alarm.mowerID))
          ON CONFLICT (mower_id) DO UPDATE SET mower_id = EXCLUDED.mower_id
          RETURNING last_theft_push_at, last_error_push_at, last_photo_at, photo_times
        )
        SELECT locked.*, now() AS transaction_start, nextval('lease_tokens') AS lease_token,
          (EXISTS (SELECT 1 FROM ingress_messages WHERE correlation_id = \(alarm.eventID))
            OR EXISTS (SELECT 1 FROM alarms WHERE event_id = \(alarm.eventID))) AS seen,
          (SELECT coalesce(json_agg(json_build_object(
              'user_id', g.user_id,
              'devices', (SELECT coalesce(json_agg(json_build_object(
                  'device_id', d.device_id, 'platform', d.platform,
                  'environment', d.environment, 'token', d.token,
                  'registered_at', extract(epoch FROM d.registered_at))
                  ORDER BY d.registered_at, d.device_id), '[]')
                FROM devices d WHERE d.user_id = g.user_id AND d.active))
              ORDER BY g.user_id), '[]')::text
            FROM grants g WHERE g.mower_id = \(alarm.mowerID)) AS recipients
        FROM locked
        """)[0]
      if try row.bool("seen") {
        return FanoutOutcome(kind: .duplicate, correlationID: alarm.eventID, mowerID: alarm.mowerID)
      }
      let state = MowerState(
        lastTheftPush: try row.optionalDate("last_theft_push_at"),
        lastErrorPush: try row.optionalDate("last_error_push_at"),
        lastPhoto: try row.optionalDate("last_photo_at"),
        photoTimes: try row.dateArray("photo_times"))
      let recipients = try Recipient.decode(try row.string("recipients"))
      let decision = rules.decide(
        alarm.alarmClass, at: time, state: state,
        reservationsInLastDay: state.reservations(inDayBefore: time), recipients: recipients.count)
      let plan = FanoutPlan(
        alarm: alarm, decisionTime: time, decision: decision, recipients: recipients,
        streamSequence: streamSequence,
        lease: FanoutPlan.Lease(
          token: Int64(try row.int("lease_token")), createdAt: try row.date("transaction_start")))
      try write(plan, tx)
      return plan.outcome
    }
  }

  /// All of a decision in one statement: the alarm, the mower's state, the photo
  /// reservation, notifications (inbox items), deliveries, the ingress record and the events.
  private func write(_ plan: FanoutPlan, _ tx: Transaction) throws {
    let alarm = plan.alarm
    let pushed = plan.isPushed
    try tx.query(
      """
      WITH alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            mower_name, reason, decision, photo, recipients)
        VALUES (\(alarm.eventID), \(alarm.mowerID), \(alarm.kind), \(alarm.alarmClass.rawValue),
                \(alarm.occurredAt), \(plan.decisionTime), \(alarm.mowerName), \(alarm.reason),
                \(pushed ? "pushed" : "suppressed"), \(plan.photoLabel),
                \(pushed ? plan.recipients.count : 0))
      ), state AS (
        UPDATE mower_state SET
          last_theft_push_at = CASE WHEN \(pushed && alarm.alarmClass == .theft)::boolean
                               THEN \(plan.decisionTime)::timestamptz ELSE last_theft_push_at END,
          last_error_push_at = CASE WHEN \(pushed && alarm.alarmClass == .error)::boolean
                               THEN \(plan.decisionTime)::timestamptz ELSE last_error_push_at END,
          last_photo_at = CASE WHEN \(plan.imageID != nil)::boolean
                          THEN \(plan.decisionTime)::timestamptz ELSE last_photo_at END,
          photo_times = CASE WHEN \(plan.imageID != nil)::boolean
                        THEN array(SELECT x FROM unnest(photo_times) x
                                   WHERE x > \(plan.decisionTime)::timestamptz - interval '24 hours')
                             || \(plan.decisionTime)::timestamptz
                        ELSE photo_times END
        WHERE mower_id = \(alarm.mowerID)
      ), reservation AS (
        INSERT INTO photo_reservations (image_id, event_id, mower_id, reserved_on)
        SELECT \(plan.imageID)::uuid, \(alarm.eventID), \(alarm.mowerID), \(plan.decisionTime)
        WHERE \(plan.imageID)::uuid IS NOT NULL
      ), notification AS (
        INSERT INTO notifications (notification_id, event_id, user_id, image_id)
        SELECT n, \(alarm.eventID), u, \(plan.imageID)::uuid
        FROM unnest(\(PostgresArray(plan.notifications.map(\.notificationID)))::uuid[],
                    \(PostgresArray(plan.notifications.map(\.userID)))::text[]) AS x(n, u)
      ), delivery AS (
        -- APNs deliveries are leased already: the handoff sends them without a claim (ADR
        -- 0016). The other platforms' wait for their workers' claims.
        INSERT INTO deliveries (delivery_id, notification_id, device_id, platform, attempts,
                                lease_token, lease_expires_at)
        SELECT d, n, v, p, CASE WHEN p = 'apns' THEN 1 ELSE 0 END,
               CASE WHEN p = 'apns' THEN \(plan.lease.token)::bigint END,
               CASE WHEN p = 'apns'
                 THEN now() + make_interval(secs => \(DeliveryHandoff.leaseSeconds)) END
        FROM unnest(\(PostgresArray(plan.deliveries.map(\.deliveryID)))::uuid[],
                    \(PostgresArray(plan.deliveries.map(\.notificationID)))::uuid[],
                    \(PostgresArray(plan.deliveries.map(\.device.deviceID)))::uuid[],
                    \(PostgresArray(plan.deliveries.map(\.device.platform.rawValue)))::text[])
          AS x(d, n, v, p)
      ), ingress AS (
        INSERT INTO ingress_messages (stream_seq, correlation_id, outcome)
        VALUES (\(Int64(plan.streamSequence)), \(alarm.eventID), 'decided')
      )
      \(fragment: eventLog.insertStatement(plan.events))
      """)
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
