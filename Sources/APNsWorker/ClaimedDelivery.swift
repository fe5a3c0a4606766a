import Events
import FoundationEssentials
import Infrastructure

/// A delivery this worker holds, with everything its push needs.
struct ClaimedDelivery: LeasedDelivery {
  let deliveryID: UUID
  let notificationID: UUID
  let eventID: UUID
  let leaseToken: Int64
  let attempt: Int
  let createdAt: Date
  let deviceID: UUID
  let token: String
  let environment: String
  let deviceActive: Bool
  let deviceRegisteredAt: Date
  let imageID: UUID?
  let kind: String
  let mowerName: String?
  let reason: String?

  init(row: Row) throws {
    deliveryID = try row.uuid("delivery_id")
    notificationID = try row.uuid("notification_id")
    eventID = try row.uuid("event_id")
    leaseToken = Int64(try row.int("lease_token"))
    attempt = try row.int("attempts")
    createdAt = try row.date("created_at")
    deviceID = try row.uuid("device_id")
    token = try row.string("token")
    environment = try row.string("environment")
    deviceActive = try row.bool("active")
    deviceRegisteredAt = try row.date("registered_at")
    imageID = try row.optionalUUID("image_id")
    kind = try row.string("kind")
    mowerName = try row.optionalString("mower_name")
    reason = try row.optionalString("reason")
  }

  /// A delivery the fan-out leased and handed to this worker (ADR 0016): its first attempt,
  /// to a device that was active when the decision was taken.
  init(handoff: DeliveryHandoff, delivery: DeliveryHandoff.Delivery) {
    deliveryID = delivery.deliveryID
    notificationID = delivery.notificationID
    eventID = handoff.eventID
    leaseToken = handoff.leaseToken
    attempt = 1
    createdAt = handoff.createdAt
    deviceID = delivery.deviceID
    token = delivery.token
    environment = delivery.environment
    deviceActive = true
    deviceRegisteredAt = delivery.deviceRegisteredAt
    imageID = handoff.imageID
    kind = handoff.kind
    mowerName = handoff.mowerName
    reason = handoff.reason
  }

  /// The first characters of the token: enough to tell devices apart in events and logs.
  var tokenPrefix: String { Directory.tokenPrefix(token) }

  /// Which push this attempt is, as each of its outcome events records it.
  var deliveryAttempt: DeliveryAttempt {
    DeliveryAttempt(
      deliveryID: deliveryID, notificationID: notificationID, deviceID: deviceID,
      tokenPrefix: tokenPrefix, environment: environment, attempt: attempt)
  }
}
