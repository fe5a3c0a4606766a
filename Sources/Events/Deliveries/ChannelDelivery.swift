import FoundationEssentials
import Infrastructure

/// A delivery a channel worker (Web Push, FCM, ntfy) holds, with everything its message
/// needs: the device's address, the alarm's text, and whether it is the photo's follow-up.
/// One type for the three channels, so that their store, outcomes and loop are shared; APNs
/// keeps its own (`ClaimedDelivery`), which carries an environment and a registration time
/// and also arrives by handoff (ADR 0016).
public struct ChannelDelivery: LeasedDelivery {
  /// A browser subscription's keys (RFC 8291), base64url as the browser gave them.
  public struct WebPushKeys: Sendable, Equatable {
    public let p256dh: String
    public let auth: String

    public init(p256dh: String, auth: String) {
      self.p256dh = p256dh
      self.auth = auth
    }
  }

  public let deliveryID: UUID
  public let notificationID: UUID
  public let eventID: UUID
  public let leaseToken: Int64
  /// 1 for the first attempt.
  public let attempt: Int
  public let createdAt: Date
  /// The photo's follow-up rather than the alarm's own message.
  public let followup: Bool
  public let platform: DevicePlatform
  public let deviceID: UUID
  /// The device's address on its platform: a Web Push endpoint, an FCM registration token,
  /// an ntfy topic.
  public let address: String
  /// Web Push devices only (a CHECK of migration 8 keeps them there).
  public let webPushKeys: WebPushKeys?
  public let deviceActive: Bool
  public let imageID: UUID?
  public let kind: String
  public let alarmClass: String
  public let mowerName: String?
  public let reason: String?

  public init(
    deliveryID: UUID, notificationID: UUID, eventID: UUID, leaseToken: Int64, attempt: Int,
    createdAt: Date, followup: Bool, platform: DevicePlatform, deviceID: UUID, address: String,
    webPushKeys: WebPushKeys?, deviceActive: Bool, imageID: UUID?, kind: String,
    alarmClass: String, mowerName: String?, reason: String?
  ) {
    self.deliveryID = deliveryID
    self.notificationID = notificationID
    self.eventID = eventID
    self.leaseToken = leaseToken
    self.attempt = attempt
    self.createdAt = createdAt
    self.followup = followup
    self.platform = platform
    self.deviceID = deviceID
    self.address = address
    self.webPushKeys = webPushKeys
    self.deviceActive = deviceActive
    self.imageID = imageID
    self.kind = kind
    self.alarmClass = alarmClass
    self.mowerName = mowerName
    self.reason = reason
  }

  /// A row of `DeliveryLeases.claim` for `platform`.
  init(row: Row, platform: DevicePlatform) throws(DatabaseError) {
    deliveryID = try row.uuid("delivery_id")
    notificationID = try row.uuid("notification_id")
    eventID = try row.uuid("event_id")
    leaseToken = Int64(try row.int("lease_token"))
    attempt = try row.int("attempts")
    createdAt = try row.date("created_at")
    followup = try row.bool("followup")
    self.platform = platform
    deviceID = try row.uuid("device_id")
    address = try row.string("token")
    if let p256dh = try row.optionalString("webpush_p256dh"),
      let auth = try row.optionalString("webpush_auth")
    {
      webPushKeys = WebPushKeys(p256dh: p256dh, auth: auth)
    } else {
      webPushKeys = nil
    }
    deviceActive = try row.bool("active")
    imageID = try row.optionalUUID("image_id")
    kind = try row.string("kind")
    alarmClass = try row.string("alarm_class")
    mowerName = try row.optionalString("mower_name")
    reason = try row.optionalString("reason")
  }

  /// What events and logs show of the address: a Web Push endpoint's host (which push
  /// service, never the secret path), a token's first characters.
  public var tokenPrefix: String { Directory.addressPrefix(address, platform: platform) }

  /// Which push this attempt is, as each of its outcome events records it.
  public var deliveryAttempt: DeliveryAttempt {
    DeliveryAttempt(
      deliveryID: deliveryID, notificationID: notificationID, deviceID: deviceID,
      tokenPrefix: tokenPrefix, platform: platform, environment: nil, attempt: attempt,
      followup: followup ? true : nil)
  }
}
