import FoundationEssentials

// The facts about a stored photo after the PhotoWorker: fetched, expired or pruned
// (docs/interfaces.md#event-types).

/// `image.served`: the first successful fetch of a notification's photo.
public struct ImageServed: EventData {
  public static let type = EventType.imageServed

  @LowercaseUUID public var notificationID: UUID
  @NullableLowercaseUUID public var imageID: UUID?
  public let bytes: Int
  /// `push` or `inbox`.
  public let route: String

  public init(notificationID: UUID, imageID: UUID?, bytes: Int, route: String) {
    self.notificationID = notificationID
    self.imageID = imageID
    self.bytes = bytes
    self.route = route
  }

  enum CodingKeys: String, CodingKey {
    case notificationID = "notification_id"
    case imageID = "image_id"
    case bytes, route
  }
}

/// `image.expired`: a stored photo or failure marker removed after its retention.
public struct ImageExpired: EventData {
  public static let type = EventType.imageExpired

  @LowercaseUUID public var imageID: UUID
  /// `captured` or `failed`.
  public let state: String
  public let bytes: Int
  /// `retention`.
  public let reason: String

  public init(imageID: UUID, state: String, bytes: Int, reason: String = "retention") {
    self.imageID = imageID
    self.state = state
    self.bytes = bytes
    self.reason = reason
  }

  enum CodingKeys: String, CodingKey {
    case imageID = "image_id"
    case state, bytes, reason
  }
}

/// `image.pruned`: a stored photo removed beyond `MOWDECK_NOTIFICATIONS_IMAGE_KEEP`.
public struct ImagePruned: EventData {
  public static let type = EventType.imagePruned

  @LowercaseUUID public var imageID: UUID
  /// `captured` or `failed`.
  public let state: String
  public let bytes: Int
  /// `keep_limit`.
  public let reason: String

  public init(imageID: UUID, state: String, bytes: Int, reason: String = "keep_limit") {
    self.imageID = imageID
    self.state = state
    self.bytes = bytes
    self.reason = reason
  }

  enum CodingKeys: String, CodingKey {
    case imageID = "image_id"
    case state, bytes, reason
  }
}
