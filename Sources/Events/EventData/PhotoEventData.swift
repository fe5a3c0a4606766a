import FoundationEssentials

// The facts about an alarm's photo, from its reservation by the fan-out to the PhotoWorker's
// result (docs/interfaces.md#event-types).

/// `image.reserved`: the fan-out reserved a photo for a pushed alarm.
public struct ImageReserved: EventData {
  public static let type = EventType.imageReserved

  @LowercaseUUID public var imageID: UUID
  public let mowerID: String

  public init(imageID: UUID, mowerID: String) {
    self.imageID = imageID
    self.mowerID = mowerID
  }

  enum CodingKeys: String, CodingKey {
    case imageID = "image_id"
    case mowerID = "mower_id"
  }
}

/// `photo.skipped`: a theft or error alarm pushed without a photo.
public struct PhotoSkipped: EventData {
  public static let type = EventType.photoSkipped

  /// `no_recipients`, `min_interval` or `daily_limit`.
  public let reason: String
  public let mowerID: String

  public init(reason: String, mowerID: String) {
    self.reason = reason
    self.mowerID = mowerID
  }

  enum CodingKeys: String, CodingKey {
    case reason
    case mowerID = "mower_id"
  }
}

/// `photo.requested`: the PhotoWorker asks the camera, at each claim still worth asking.
public struct PhotoRequested: EventData {
  public static let type = EventType.photoRequested

  @LowercaseUUID public var imageID: UUID
  public let mowerID: String
  public let attempt: Int
  /// Whole seconds the camera is given.
  public let timeoutSeconds: Int

  public init(imageID: UUID, mowerID: String, attempt: Int, timeoutSeconds: Int) {
    self.imageID = imageID
    self.mowerID = mowerID
    self.attempt = attempt
    self.timeoutSeconds = timeoutSeconds
  }

  enum CodingKeys: String, CodingKey {
    case imageID = "image_id"
    case mowerID = "mower_id"
    case attempt
    case timeoutSeconds = "timeout_s"
  }
}

/// `photo.captured`: the photo is stored.
public struct PhotoCaptured: EventData {
  public static let type = EventType.photoCaptured

  @LowercaseUUID public var imageID: UUID
  public let bytes: Int
  /// Whole milliseconds from the request to the reply.
  public let captureMilliseconds: Int
  public let attempt: Int

  public init(imageID: UUID, bytes: Int, captureMilliseconds: Int, attempt: Int) {
    self.imageID = imageID
    self.bytes = bytes
    self.captureMilliseconds = captureMilliseconds
    self.attempt = attempt
  }

  enum CodingKeys: String, CodingKey {
    case imageID = "image_id"
    case bytes
    case captureMilliseconds = "capture_ms"
    case attempt
  }
}

/// `photo.failed`: the reservation ended without a photo.
public struct PhotoFailed: EventData {
  public static let type = EventType.photoFailed

  @LowercaseUUID public var imageID: UUID
  /// One of the reasons docs/interfaces.md lists (`timeout`, `asleep`, ...).
  public let reason: String
  /// The camera's or the store's words, cleaned, at most 200 characters.
  @Nullable public var detail: String?
  /// Whole milliseconds from the request to the failure.
  public let afterMilliseconds: Int
  public let attempt: Int

  public init(
    imageID: UUID, reason: String, detail: String?, afterMilliseconds: Int, attempt: Int
  ) {
    self.imageID = imageID
    self.reason = reason
    self.detail = detail
    self.afterMilliseconds = afterMilliseconds
    self.attempt = attempt
  }

  enum CodingKeys: String, CodingKey {
    case imageID = "image_id"
    case reason, detail
    case afterMilliseconds = "after_ms"
    case attempt
  }
}
