import FoundationEssentials

// A push worker's record of each attempt (docs/interfaces.md#event-types). Each begins with
// the same fields (`DeliveryAttempt`), kept flat so that SQL reads `data->>'delivery_id'` as
// it always did.

/// `delivery.sent`: the push service accepted the push.
public struct DeliverySent: EventData {
  public static let type = EventType.deliverySent

  @LowercaseUUID public var deliveryID: UUID
  @LowercaseUUID public var notificationID: UUID
  @LowercaseUUID public var deviceID: UUID
  public let tokenPrefix: String
  /// Absent only in events written before devices had platforms: all of them APNs.
  public let platform: DevicePlatform?
  /// APNs devices only.
  public let environment: String?
  public let attempt: Int
  /// True for the photo's follow-up; absent for the alarm's own message.
  public let followup: Bool?
  /// APNs's `apns-id`, if it sent one (`null` for the other platforms).
  @Nullable public var apnsID: String?
  public let status: Int
  public let latencyMilliseconds: Int
  public let hasImage: Bool

  public init(
    _ delivery: DeliveryAttempt, apnsID: String?, status: Int, latencyMilliseconds: Int,
    hasImage: Bool
  ) {
    deliveryID = delivery.deliveryID
    notificationID = delivery.notificationID
    deviceID = delivery.deviceID
    tokenPrefix = delivery.tokenPrefix
    platform = delivery.platform
    environment = delivery.environment
    attempt = delivery.attempt
    followup = delivery.followup
    self.apnsID = apnsID
    self.status = status
    self.latencyMilliseconds = latencyMilliseconds
    self.hasImage = hasImage
  }

  enum CodingKeys: String, CodingKey {
    case deliveryID = "delivery_id"
    case notificationID = "notification_id"
    case deviceID = "device_id"
    case tokenPrefix = "token_prefix"
    case platform, environment, attempt, followup
    case apnsID = "apns_id"
    case status
    case latencyMilliseconds = "latency_ms"
    case hasImage = "has_image"
  }
}

/// `delivery.retry_scheduled`: the attempt failed in a way worth trying again.
public struct DeliveryRetryScheduled: EventData {
  public static let type = EventType.deliveryRetryScheduled

  @LowercaseUUID public var deliveryID: UUID
  @LowercaseUUID public var notificationID: UUID
  @LowercaseUUID public var deviceID: UUID
  public let tokenPrefix: String
  /// Absent only in events written before devices had platforms: all of them APNs.
  public let platform: DevicePlatform?
  /// APNs devices only.
  public let environment: String?
  public let attempt: Int
  /// True for the photo's follow-up; absent for the alarm's own message.
  public let followup: Bool?
  /// The push service's HTTP status; nil for a network failure.
  @Nullable public var status: Int?
  public let reason: String
  public let retryInMilliseconds: Int

  public init(
    _ delivery: DeliveryAttempt, status: Int?, reason: String, retryInMilliseconds: Int
  ) {
    deliveryID = delivery.deliveryID
    notificationID = delivery.notificationID
    deviceID = delivery.deviceID
    tokenPrefix = delivery.tokenPrefix
    platform = delivery.platform
    environment = delivery.environment
    attempt = delivery.attempt
    followup = delivery.followup
    self.status = status
    self.reason = reason
    self.retryInMilliseconds = retryInMilliseconds
  }

  enum CodingKeys: String, CodingKey {
    case deliveryID = "delivery_id"
    case notificationID = "notification_id"
    case deviceID = "device_id"
    case tokenPrefix = "token_prefix"
    case platform, environment, attempt, followup, status, reason
    case retryInMilliseconds = "retry_in_ms"
  }
}

/// `delivery.failed`: the delivery ends unsent.
public struct DeliveryFailed: EventData {
  public static let type = EventType.deliveryFailed

  @LowercaseUUID public var deliveryID: UUID
  @LowercaseUUID public var notificationID: UUID
  @LowercaseUUID public var deviceID: UUID
  public let tokenPrefix: String
  /// Absent only in events written before devices had platforms: all of them APNs.
  public let platform: DevicePlatform?
  /// APNs devices only.
  public let environment: String?
  public let attempt: Int
  /// True for the photo's follow-up; absent for the alarm's own message.
  public let followup: Bool?
  /// The push service's HTTP status; nil when no answer came.
  @Nullable public var status: Int?
  public let reason: String
  /// When APNs says the token stopped being valid (milliseconds since 1970), if it said.
  @Nullable public var apnsTimestamp: Int64?

  public init(_ delivery: DeliveryAttempt, status: Int?, reason: String, apnsTimestamp: Int64?) {
    deliveryID = delivery.deliveryID
    notificationID = delivery.notificationID
    deviceID = delivery.deviceID
    tokenPrefix = delivery.tokenPrefix
    platform = delivery.platform
    environment = delivery.environment
    attempt = delivery.attempt
    followup = delivery.followup
    self.status = status
    self.reason = reason
    self.apnsTimestamp = apnsTimestamp
  }

  enum CodingKeys: String, CodingKey {
    case deliveryID = "delivery_id"
    case notificationID = "notification_id"
    case deviceID = "device_id"
    case tokenPrefix = "token_prefix"
    case platform, environment, attempt, followup, status, reason
    case apnsTimestamp = "apns_timestamp"
  }
}
