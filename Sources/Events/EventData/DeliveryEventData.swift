import FoundationEssentials

// The facts about one push to one device: queued by the fan-out, and the APNsWorker's
// attempts (docs/interfaces.md#event-types).

/// `delivery.queued`: one per active device of a recipient.
public struct DeliveryQueued: EventData {
  public static let type = EventType.deliveryQueued

  @LowercaseUUID public var deliveryID: UUID
  @LowercaseUUID public var notificationID: UUID
  @LowercaseUUID public var deviceID: UUID
  /// Absent only in events written before devices had platforms: all of them APNs.
  public let platform: DevicePlatform?
  /// `production` or `sandbox` for an APNs device; absent for the other platforms.
  public let environment: String?
  /// The address's first 8 characters: never the whole token, endpoint or topic.
  public let tokenPrefix: String
  /// `true` for the photo's follow-up, queued with `photo.captured`; absent for the alarm's
  /// own message.
  public let followup: Bool?

  public init(
    deliveryID: UUID, notificationID: UUID, deviceID: UUID, platform: DevicePlatform,
    environment: String?, tokenPrefix: String, followup: Bool? = nil
  ) {
    self.deliveryID = deliveryID
    self.notificationID = notificationID
    self.deviceID = deviceID
    self.platform = platform
    self.environment = environment
    self.tokenPrefix = tokenPrefix
    self.followup = followup
  }

  enum CodingKeys: String, CodingKey {
    case deliveryID = "delivery_id"
    case notificationID = "notification_id"
    case deviceID = "device_id"
    case platform, environment
    case tokenPrefix = "token_prefix"
    case followup
  }
}

/// Which push an attempt was: the fields `delivery.sent`, `delivery.retry_scheduled` and
/// `delivery.failed` all begin with. The events hold them flat, as they always did.
public struct DeliveryAttempt: Sendable, Equatable {
  public let deliveryID: UUID
  public let notificationID: UUID
  public let deviceID: UUID
  public let tokenPrefix: String
  public let platform: DevicePlatform
  /// `production` or `sandbox` for an APNs device; nil for the other platforms.
  public let environment: String?
  /// 1 for the first attempt.
  public let attempt: Int
  /// True for the photo's follow-up; nil for the alarm's own message.
  public let followup: Bool?

  public init(
    deliveryID: UUID, notificationID: UUID, deviceID: UUID, tokenPrefix: String,
    platform: DevicePlatform = .apns, environment: String?, attempt: Int, followup: Bool? = nil
  ) {
    self.deliveryID = deliveryID
    self.notificationID = notificationID
    self.deviceID = deviceID
    self.tokenPrefix = tokenPrefix
    self.platform = platform
    self.environment = environment
    self.attempt = attempt
    self.followup = followup
  }
}

/// `device.deactivated`: the push service said the device's address is no longer valid.
public struct DeviceDeactivated: EventData {
  public static let type = EventType.deviceDeactivated

  @LowercaseUUID public var deviceID: UUID
  public let tokenPrefix: String
  /// Absent only in events written before devices had platforms: all of them APNs.
  public let platform: DevicePlatform?
  public let reason: String
  /// When APNs says the token stopped being valid (milliseconds since 1970), if it said.
  @Nullable public var apnsTimestamp: Int64?

  public init(
    deviceID: UUID, tokenPrefix: String, platform: DevicePlatform = .apns, reason: String,
    apnsTimestamp: Int64?
  ) {
    self.deviceID = deviceID
    self.tokenPrefix = tokenPrefix
    self.platform = platform
    self.reason = reason
    self.apnsTimestamp = apnsTimestamp
  }

  enum CodingKeys: String, CodingKey {
    case deviceID = "device_id"
    case tokenPrefix = "token_prefix"
    case platform, reason
    case apnsTimestamp = "apns_timestamp"
  }
}
