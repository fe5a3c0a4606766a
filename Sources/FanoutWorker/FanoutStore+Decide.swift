import Events
import FoundationEssentials
import Infrastructure

extension FanoutStore {
  /// How long a decision waits for a mower's row lock before its transaction fails: far
  /// beyond a decision's own milliseconds, short enough that the replica's one decision
  /// transaction (`MOWDECK_FANOUT_TRANSACTIONS`) is not held up for long by one mower.
  static let lockTimeout: Duration = .seconds(2)

  /// Decides every alarm of `batch` in one transaction: one statement locks and reads the
  /// mowers, the rules decide in memory, one statement writes it all. The outcomes come in
  /// the batch's order. Any failure fails the whole batch; nothing of it is written.
  func decide(_ batch: DecisionBatch) async throws -> [FanoutOutcome] {
    let alarms = batch.alarms
    let handOff = handoffGate.isOpen()
    // A mower row locked elsewhere (a replica frozen mid-transaction, an operator's session)
    // fails the batch after the lock timeout instead of holding it: its other alarms are
    // then decided alone, and the locked mower's alarm is retried as an outage (ADR 0049).
    return try await pool.withTransaction(lockTimeout: Self.lockTimeout) { tx in
      let rows = try tx.query(lockAndRead(alarms))
      guard rows.count == alarms.count else {
        throw FanoutStoreError.mowersNotLocked(expected: alarms.count, locked: rows.count)
      }
      var plans: [FanoutPlan] = []
      var outcomes: [FanoutOutcome] = []
      for (pending, row) in zip(alarms, rows) {
        let alarm = pending.alarm
        if try row.bool("seen") {
          outcomes.append(
            FanoutOutcome(kind: .duplicate, correlationID: alarm.eventID, mowerID: alarm.mowerID))
          continue
        }
        let time = DecisionRules.decisionTime(
          occurredAt: alarm.occurredAt, receivedAt: pending.receivedAt)
        let state = MowerState(
          lastTheftPush: try row.optionalDate("last_theft_push_at"),
          lastErrorPush: try row.optionalDate("last_error_push_at"),
          lastPhoto: try row.optionalDate("last_photo_at"),
          photoTimes: try row.dateArray("photo_times"))
        let recipients = try Recipient.decode(try row.string("recipients"))
        let decision = rules.decide(
          alarm.alarmClass, at: time, state: state,
          reservationsInLastDay: state.reservations(inDayBefore: time),
          recipients: recipients.count)
        let plan = FanoutPlan(
          alarm: alarm, decisionTime: time, decision: decision, recipients: recipients,
          streamSequence: pending.streamSequence,
          lease: FanoutPlan.Lease(
            token: handOff ? Int64(try row.int("lease_token")) : nil,
            // The stream's clock may run ahead of the database's: a receipt after the
            // transaction began would make a delivery younger than its own lease.
            receivedAt: min(pending.storedAt, try row.date("transaction_start"))))
        plans.append(plan)
        outcomes.append(plan.outcome)
      }
      if !plans.isEmpty { try tx.query(FanoutBatchWrite(plans: plans, eventLog: eventLog).sql) }
      return outcomes
    }
  }

  /// Locks each alarm's mower (its `mower_state` row, made on first sight) and reads what
  /// the decision needs, one row per alarm in the batch's order.
  ///
  /// The row lock serialises every decision about a mower, across replicas; a decision
  /// reads only its locked row. The locks are taken in mower order, so two replicas' batches
  /// never wait for each other in a circle. A duplicate racing on another replica past the
  /// `seen` check fails on the alarms primary key, and its retry alone finds it seen.
  private func lockAndRead(_ alarms: [PendingAlarm]) -> SQL {
    """
    WITH input AS (
      SELECT * FROM unnest(\(PostgresArray(alarms.map(\.alarm.mowerID)))::text[],
                           \(PostgresArray(alarms.map(\.alarm.eventID)))::uuid[])
        WITH ORDINALITY AS x(mower_id, event_id, ord)
    ), locked AS (
      INSERT INTO mower_state (mower_id) SELECT mower_id FROM input ORDER BY mower_id
      ON CONFLICT (mower_id) DO UPDATE SET mower_id = EXCLUDED.mower_id
      RETURNING mower_id, last_theft_push_at, last_error_push_at, last_photo_at, photo_times
    )
    SELECT locked.last_theft_push_at, locked.last_error_push_at, locked.last_photo_at,
      locked.photo_times, now() AS transaction_start, nextval('lease_tokens') AS lease_token,
      ((SELECT true FROM ingress_messages WHERE correlation_id = input.event_id LIMIT 1)
        IS NOT NULL
        OR (SELECT true FROM alarms WHERE event_id = input.event_id) IS NOT NULL) AS seen,
      (SELECT coalesce(json_agg(json_build_object(
          'user_id', g.user_id,
          'devices', (SELECT coalesce(json_agg(json_build_object(
              'device_id', d.device_id, 'platform', d.platform,
              'environment', d.environment, 'token', d.token,
              'registered_at', extract(epoch FROM d.registered_at))
              ORDER BY d.registered_at, d.device_id), '[]')
            FROM devices d WHERE d.user_id = g.user_id AND d.active))
          ORDER BY g.user_id), '[]')::text
        FROM grants g WHERE g.mower_id = input.mower_id) AS recipients
    FROM input JOIN locked USING (mower_id)
    ORDER BY input.ord
    """
  }
}

/// What went wrong in a decision that PostgreSQL did not refuse.
enum FanoutStoreError: Error, CustomStringConvertible {
  /// The lock-and-read statement returned fewer rows than the batch has alarms.
  case mowersNotLocked(expected: Int, locked: Int)

  var description: String {
    switch self {
    case .mowersNotLocked(let expected, let locked):
      "locked \(locked) mowers for \(expected) alarms"
    }
  }
}
