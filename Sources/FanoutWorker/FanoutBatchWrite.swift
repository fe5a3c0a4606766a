import Events
import FoundationEssentials
import Infrastructure

/// All of a batch's decisions in one statement: the alarms, the mowers' state, the photo
/// reservations, notifications (inbox items), deliveries, the ingress records and the
/// events. Each table's rows travel as one array per column, so the statement has the same
/// shape, and as many parameters, for a batch of one or of hundreds.
struct FanoutBatchWrite {
  let plans: [FanoutPlan]
  let eventLog: EventLog

  var sql: SQL {
    let alarms = plans.map(\.alarm)
    let notifications = plans.flatMap { plan in
      plan.notifications.map { (row: $0, plan: plan) }
    }
    let deliveries = plans.flatMap { plan in plan.deliveries.map { (row: $0, plan: plan) } }
    return """
      WITH input AS (
        SELECT * FROM unnest(
          \(PostgresArray(alarms.map(\.eventID)))::uuid[],
          \(PostgresArray(alarms.map(\.mowerID)))::text[],
          \(PostgresArray(alarms.map(\.kind)))::text[],
          \(PostgresArray(alarms.map(\.alarmClass.rawValue)))::text[],
          \(PostgresArray(alarms.map { Timestamp.format($0.occurredAt) }))::timestamptz[],
          \(PostgresArray(plans.map { Timestamp.format($0.decisionTime) }))::timestamptz[],
          \(PostgresArray(alarms.map(\.mowerName)))::text[],
          \(PostgresArray(alarms.map(\.reason)))::text[],
          \(PostgresArray(plans.map { $0.isPushed ? "pushed" : "suppressed" }))::text[],
          \(PostgresArray(plans.map(\.photoLabel)))::text[],
          \(PostgresArray(plans.map { String($0.isPushed ? $0.recipients.count : 0) }))::int[],
          \(PostgresArray(plans.map { String($0.streamSequence) }))::bigint[],
          \(PostgresArray(plans.map(\.imageID)))::uuid[],
          \(PostgresArray(plans.map { Timestamp.format($0.lease.receivedAt) }))::timestamptz[])
        AS x(event_id, mower_id, kind, alarm_class, occurred_at, decided_on, mower_name,
             reason, decision, photo, recipients, stream_seq, image_id, received_at)
      ), alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            mower_name, reason, decision, photo, recipients, received_at)
        SELECT event_id, mower_id, kind, alarm_class, occurred_at, decided_on, mower_name,
               reason, decision, photo, recipients, received_at
        FROM input
      ), state AS (
        UPDATE mower_state m SET
          last_theft_push_at = CASE WHEN i.decision = 'pushed' AND i.alarm_class = 'theft'
                               THEN i.decided_on ELSE m.last_theft_push_at END,
          last_error_push_at = CASE WHEN i.decision = 'pushed' AND i.alarm_class = 'error'
                               THEN i.decided_on ELSE m.last_error_push_at END,
          last_photo_at = CASE WHEN i.image_id IS NOT NULL
                          THEN i.decided_on ELSE m.last_photo_at END,
          photo_times = CASE WHEN i.image_id IS NOT NULL
                        THEN array(SELECT t FROM unnest(m.photo_times) t
                                   WHERE t > i.decided_on - interval '24 hours')
                             || i.decided_on
                        ELSE m.photo_times END
        FROM input i
        WHERE m.mower_id = i.mower_id
      ), reservation AS (
        INSERT INTO photo_reservations (image_id, event_id, mower_id, reserved_on)
        SELECT image_id, event_id, mower_id, decided_on FROM input WHERE image_id IS NOT NULL
      ), notification AS (
        INSERT INTO notifications (notification_id, event_id, user_id, image_id)
        SELECT n, e, u, i
        FROM unnest(\(PostgresArray(notifications.map(\.row.notificationID)))::uuid[],
                    \(PostgresArray(notifications.map(\.plan.alarm.eventID)))::uuid[],
                    \(PostgresArray(notifications.map(\.row.userID)))::text[],
                    \(PostgresArray(notifications.map(\.plan.imageID)))::uuid[])
          AS x(n, e, u, i)
      ), delivery AS (
        -- APNs deliveries are leased already: the handoff sends them without a claim (ADR
        -- 0016), unless the handoffs are paused (no lease token, ADR 0046). The other
        -- platforms' wait for their workers' claims.
        INSERT INTO deliveries (delivery_id, notification_id, device_id, platform, created_at,
                                attempts, lease_token, lease_expires_at)
        SELECT d, n, v, p, c, CASE WHEN p = 'apns' AND t IS NOT NULL THEN 1 ELSE 0 END,
               CASE WHEN p = 'apns' THEN t END,
               CASE WHEN p = 'apns' AND t IS NOT NULL
                 THEN now() + make_interval(secs => \(DeliveryHandoff.leaseSeconds)) END
        FROM unnest(\(PostgresArray(deliveries.map(\.row.deliveryID)))::uuid[],
                    \(PostgresArray(deliveries.map(\.row.notificationID)))::uuid[],
                    \(PostgresArray(deliveries.map(\.row.device.deviceID)))::uuid[],
                    \(PostgresArray(deliveries.map(\.row.device.platform.rawValue)))::text[],
                    \(PostgresArray(deliveries.map { $0.plan.lease.token.map(String.init) }))::bigint[],
                    \(PostgresArray(deliveries.map { Timestamp.format($0.plan.lease.receivedAt) }))
                      ::timestamptz[])
          AS x(d, n, v, p, t, c)
      ), ingress AS (
        INSERT INTO ingress_messages (stream_seq, correlation_id, outcome)
        SELECT stream_seq, event_id, 'decided' FROM input
      )
      \(fragment: eventLog.insertStatement(plans.flatMap(\.events)))
      """
  }
}
