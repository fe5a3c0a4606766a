import FoundationEssentials

// The fan-out's facts about an alarm itself (docs/interfaces.md#event-types).

/// `alarm.received`: a valid alarm, decided (pushed or suppressed).
public struct AlarmReceived: EventData {
  public static let type = EventType.alarmReceived

  public let mowerID: String
  public let kind: String
  /// `theft`, `error` or `routine` (the fan-out's `AlarmClass`).
  public let alarmClass: String
  public let occurredAt: Date
  /// The decision time.
  public let decidedOn: Date
  @Nullable public var mowerName: String?
  @Nullable public var reason: String?
  /// The message's sequence in the ingress stream.
  public let streamSequence: UInt64

  public init(
    mowerID: String, kind: String, alarmClass: String, occurredAt: Date, decidedOn: Date,
    mowerName: String?, reason: String?, streamSequence: UInt64
  ) {
    self.mowerID = mowerID
    self.kind = kind
    self.alarmClass = alarmClass
    self.occurredAt = occurredAt
    self.decidedOn = decidedOn
    self.mowerName = mowerName
    self.reason = reason
    self.streamSequence = streamSequence
  }

  enum CodingKeys: String, CodingKey {
    case mowerID = "mower_id"
    case kind
    case alarmClass = "class"
    case occurredAt = "occurred_at"
    case decidedOn = "decided_on"
    case mowerName = "mower_name"
    case reason
    case streamSequence = "stream_seq"
  }
}

/// `alarm.rejected`: an ingress message that breaks the contract, that PostgreSQL refused,
/// or that could not be decided.
public struct AlarmRejected: EventData {
  public static let type = EventType.alarmRejected

  /// One of the ingress reasons (docs/interfaces.md#ingress-alarm).
  public let reason: String
  /// The message's subject, cleaned, at most 256 characters.
  public let subject: String
  /// From the subject; nil when it names none.
  @Nullable public var mowerID: String?
  public let streamSequence: UInt64
  public let payloadBytes: Int
  public let payloadSHA256: String
  // Only when known (`refused_by_database`, `undecidable`), and then left out rather than
  // `null`, as they always were.
  /// The SQLSTATE class, `database`, or the error's type.
  public let errorClass: String?
  public let sqlState: String?
  public let constraint: String?
  /// How many times an `undecidable` alarm was tried.
  public let attempts: Int?

  public init(
    reason: String, subject: String, mowerID: String?, streamSequence: UInt64,
    payloadBytes: Int, payloadSHA256: String, errorClass: String? = nil,
    sqlState: String? = nil, constraint: String? = nil, attempts: Int? = nil
  ) {
    self.reason = reason
    self.subject = subject
    self.mowerID = mowerID
    self.streamSequence = streamSequence
    self.payloadBytes = payloadBytes
    self.payloadSHA256 = payloadSHA256
    self.errorClass = errorClass
    self.sqlState = sqlState
    self.constraint = constraint
    self.attempts = attempts
  }

  enum CodingKeys: String, CodingKey {
    case reason, subject
    case mowerID = "mower_id"
    case streamSequence = "stream_seq"
    case payloadBytes = "payload_bytes"
    case payloadSHA256 = "payload_sha256"
    case errorClass = "error_class"
    case sqlState = "sqlstate"
    case constraint, attempts
  }
}

/// `alarm.suppressed`: not pushed, within its class's cooldown.
public struct AlarmSuppressed: EventData {
  public static let type = EventType.alarmSuppressed

  public let alarmClass: String
  public let cooldownSeconds: Int
  public let lastPushOn: Date
  public let secondsSinceLastPush: Int

  public init(alarmClass: String, cooldownSeconds: Int, lastPushOn: Date, secondsSinceLastPush: Int)
  {
    self.alarmClass = alarmClass
    self.cooldownSeconds = cooldownSeconds
    self.lastPushOn = lastPushOn
    self.secondsSinceLastPush = secondsSinceLastPush
  }

  enum CodingKeys: String, CodingKey {
    case alarmClass = "class"
    case cooldownSeconds = "cooldown_s"
    case lastPushOn = "last_push_on"
    case secondsSinceLastPush = "seconds_since_last_push"
  }
}

/// `notification.created`: one per recipient user of a pushed alarm.
public struct NotificationCreated: EventData {
  public static let type = EventType.notificationCreated

  @LowercaseUUID public var notificationID: UUID
  public let userID: String
  public let hasImage: Bool

  public init(notificationID: UUID, userID: String, hasImage: Bool) {
    self.notificationID = notificationID
    self.userID = userID
    self.hasImage = hasImage
  }

  enum CodingKeys: String, CodingKey {
    case notificationID = "notification_id"
    case userID = "user_id"
    case hasImage = "has_image"
  }
}
