import Events
import FoundationEssentials
import Infrastructure

/// Everything one decision writes, worked out before the write: ids, rows and events.
struct FanoutPlan: Sendable {
  struct NotificationRow: Sendable {
    let notificationID: UUID
    let userID: String
  }

  /// The lease the deliveries are written with, read in the decision's transaction.
  struct Lease: Sendable {
    /// The handoff's lease on the APNs deliveries; nil when the handoffs are paused
    /// (`HandoffGate`) and the APNs deliveries wait for the workers' claims.
    let token: Int64?
    /// The alarm's receipt (when JetStream stored it, never later than the transaction's
    /// `now()`): the alarm's `received_at` and each delivery's `created_at`.
    let receivedAt: Date
  }

  let alarm: IngressAlarm
  let decisionTime: Date
  let decision: Decision
  let recipients: [Recipient]
  let streamSequence: UInt64
  let lease: Lease
  let imageID: UUID?
  let notifications: [NotificationRow]
  /// One push to one device of a recipient.
  struct DeliveryRow: Sendable {
    let deliveryID: UUID
    let notificationID: UUID
    let device: Recipient.Device
  }

  /// The rows of `deliveries`, every platform's.
  let deliveries: [DeliveryRow]

  init(
    alarm: IngressAlarm, decisionTime: Date, decision: Decision, recipients: [Recipient],
    streamSequence: UInt64, lease: Lease
  ) {
    self.alarm = alarm
    self.decisionTime = decisionTime
    self.decision = decision
    self.recipients = recipients
    self.streamSequence = streamSequence
    self.lease = lease
    guard case .pushed(let photo) = decision else {
      imageID = nil
      notifications = []
      deliveries = []
      return
    }
    imageID = photo == .reserved ? UUID() : nil
    var notifications: [NotificationRow] = []
    var deliveries: [DeliveryRow] = []
    for recipient in recipients {
      // A random id per user: the only identifier that ever appears in a push URL.
      let notification = NotificationRow(notificationID: UUID(), userID: recipient.userID)
      notifications.append(notification)
      for device in recipient.devices {
        deliveries.append(
          DeliveryRow(
            deliveryID: UUID(), notificationID: notification.notificationID, device: device))
      }
    }
    self.notifications = notifications
    self.deliveries = deliveries
  }

  var isPushed: Bool {
    if case .pushed = decision { return true }
    return false
  }

  var photoLabel: String? {
    if case .pushed(let photo) = decision { return photo.label }
    return nil
  }

  /// The facts, in the order they happened.
  var events: [NewEvent] {
    let id = alarm.eventID
    var events = [
      NewEvent(
        AlarmReceived(
          mowerID: alarm.mowerID, kind: alarm.kind, alarmClass: alarm.alarmClass.rawValue,
          occurredAt: alarm.occurredAt, decidedOn: decisionTime, mowerName: alarm.mowerName,
          reason: alarm.reason, streamSequence: streamSequence),
        correlationID: id)
    ]
    switch decision {
    case .suppressed(let lastPush, let cooldown):
      events.append(
        NewEvent(
          AlarmSuppressed(
            alarmClass: alarm.alarmClass.rawValue, cooldownSeconds: cooldown,
            lastPushOn: lastPush,
            secondsSinceLastPush: Int(decisionTime.timeIntervalSince(lastPush))),
          correlationID: id))
    case .pushed(let photo):
      for notification in notifications {
        events.append(
          NewEvent(
            NotificationCreated(
              notificationID: notification.notificationID, userID: notification.userID,
              hasImage: imageID != nil),
            correlationID: id))
      }
      for delivery in deliveries {
        events.append(
          NewEvent(
            DeliveryQueued(
              deliveryID: delivery.deliveryID, notificationID: delivery.notificationID,
              deviceID: delivery.device.deviceID, platform: delivery.device.platform,
              environment: delivery.device.environment,
              tokenPrefix: Directory.addressPrefix(
                delivery.device.token, platform: delivery.device.platform)),
            correlationID: id))
      }
      switch photo {
      case .reserved:
        if let imageID {  // always, for a reservation (init)
          events.append(
            NewEvent(ImageReserved(imageID: imageID, mowerID: alarm.mowerID), correlationID: id))
        }
      case .skipped(let reason):
        events.append(
          NewEvent(
            PhotoSkipped(reason: reason.rawValue, mowerID: alarm.mowerID), correlationID: id))
      case .none:
        break
      }
    }
    return events
  }

  /// What the APNs worker is offered after the commit: the APNs deliveries; nil when there
  /// are none.
  var handoff: DeliveryHandoff? {
    let apns = deliveries.compactMap { row -> DeliveryHandoff.Delivery? in
      guard row.device.platform == .apns, let environment = row.device.environment else {
        return nil
      }
      return DeliveryHandoff.Delivery(
        deliveryID: row.deliveryID, notificationID: row.notificationID,
        deviceID: row.device.deviceID, token: row.device.token, environment: environment,
        deviceRegisteredAt: row.device.registeredAt)
    }
    guard !apns.isEmpty, let leaseToken = lease.token else { return nil }
    return DeliveryHandoff(
      leaseToken: leaseToken, eventID: alarm.eventID, createdAt: lease.receivedAt,
      kind: alarm.kind, mowerName: alarm.mowerName, reason: alarm.reason, imageID: imageID,
      deliveries: apns)
  }

  var outcome: FanoutOutcome {
    FanoutOutcome(
      kind: isPushed ? .pushed : .suppressed, correlationID: alarm.eventID,
      mowerID: alarm.mowerID, reservedImage: imageID != nil, handoff: handoff,
      queuedForClaims: deliveries.contains { $0.device.platform != .apns || lease.token == nil },
      handoffPaused: lease.token == nil && deliveries.contains { $0.device.platform == .apns },
      detail: photoLabel)
  }
}
