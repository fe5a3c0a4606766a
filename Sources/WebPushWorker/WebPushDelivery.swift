import Events
import FoundationEssentials
import Infrastructure

/// A `webpush` delivery this worker holds, with everything its push needs: the browser's
/// subscription, the alarm's text, and whether it is the photo's follow-up.
struct WebPushDelivery: Sendable {
  let deliveryID: UUID
  let notificationID: UUID
  let eventID: UUID
  let leaseToken: Int64
  let attempt: Int
  let createdAt: Date
  let followup: Bool
  let deviceID: UUID
  let endpoint: String
  let p256dh: String
  let auth: String
  let deviceActive: Bool
  let imageID: UUID?
  let kind: String
  let alarmClass: String
  let mowerName: String?
  let reason: String?

  init(
    deliveryID: UUID, notificationID: UUID, eventID: UUID, leaseToken: Int64, attempt: Int,
    createdAt: Date, followup: Bool, deviceID: UUID, endpoint: String, p256dh: String,
    auth: String, deviceActive: Bool, imageID: UUID?, kind: String, alarmClass: String,
    mowerName: String?, reason: String?
  ) {
    self.deliveryID = deliveryID
    self.notificationID = notificationID
    self.eventID = eventID
    self.leaseToken = leaseToken
    self.attempt = attempt
    self.createdAt = createdAt
    self.followup = followup
    self.deviceID = deviceID
    self.endpoint = endpoint
    self.p256dh = p256dh
    self.auth = auth
    self.deviceActive = deviceActive
    self.imageID = imageID
    self.kind = kind
    self.alarmClass = alarmClass
    self.mowerName = mowerName
    self.reason = reason
  }

  init(row: Row) throws {
    deliveryID = try row.uuid("delivery_id")
    notificationID = try row.uuid("notification_id")
    eventID = try row.uuid("event_id")
    leaseToken = Int64(try row.int("lease_token"))
    attempt = try row.int("attempts")
    createdAt = try row.date("created_at")
    followup = try row.bool("followup")
    deviceID = try row.uuid("device_id")
    endpoint = try row.string("token")
    // `NOT NULL` for every webpush device (a CHECK of migration 8).
    p256dh = try row.optionalString("webpush_p256dh") ?? ""
    auth = try row.optionalString("webpush_auth") ?? ""
    deviceActive = try row.bool("active")
    imageID = try row.optionalUUID("image_id")
    kind = try row.string("kind")
    alarmClass = try row.string("alarm_class")
    mowerName = try row.optionalString("mower_name")
    reason = try row.optionalString("reason")
  }

  /// The endpoint's host: which push service, never the secret path.
  var tokenPrefix: String { Directory.addressPrefix(endpoint, platform: .webpush) }

  var deliveryAttempt: DeliveryAttempt {
    DeliveryAttempt(
      deliveryID: deliveryID, notificationID: notificationID, deviceID: deviceID,
      tokenPrefix: tokenPrefix, platform: .webpush, environment: nil, attempt: attempt,
      followup: followup ? true : nil)
  }
}
