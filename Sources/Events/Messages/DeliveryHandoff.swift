import FoundationEssentials

/// One decision's deliveries, committed by the fan-out already leased, offered to one APNs
/// worker by NATS request/reply so the push leaves without a claim round trip (ADR 0016).
///
/// It carries everything the push needs, the device token included: NATS between our own
/// stages is not the event log, which still sees token prefixes only. The worker answers
/// `taken` once the pushes have started, or `declined`; anything else (no answer, no
/// worker listening) and the fan-out releases the lease, so the deliveries go the claim
/// path at once instead of waiting for the lease to lapse.
public struct DeliveryHandoff: Sendable, Equatable {
  public struct Delivery: Sendable, Equatable {
    public let deliveryID: UUID
    public let notificationID: UUID
    public let deviceID: UUID
    public let token: String
    public let environment: String
    public let deviceRegisteredAt: Date

    public init(
      deliveryID: UUID, notificationID: UUID, deviceID: UUID, token: String,
      environment: String, deviceRegisteredAt: Date
    ) {
      self.deliveryID = deliveryID
      self.notificationID = notificationID
      self.deviceID = deviceID
      self.token = token
      self.environment = environment
      self.deviceRegisteredAt = deviceRegisteredAt
    }

    public var tokenPrefix: String { Directory.tokenPrefix(token) }
  }

  /// The lease handed-off deliveries are written with. Short, so that a fan-out killed
  /// before its offer costs them seconds, not the APNs lease; the worker that takes them
  /// renews it while a push lasts longer than a moment.
  public static let leaseSeconds = 5

  /// What the APNs worker answers.
  public enum Answer: String, Sendable {
    case taken, declined
  }

  /// The fencing token of every delivery's lease (one per decision).
  public let leaseToken: Int64
  public let eventID: UUID
  /// The deliveries' `created_at`: the fan-out transaction's `now()`.
  public let createdAt: Date
  public let kind: String
  public let mowerName: String?
  public let reason: String?
  public let imageID: UUID?
  public let deliveries: [Delivery]
  /// Set by the fan-out when it sends the offer: a worker that reads it later declines,
  /// because by then the fan-out has stopped waiting and may have released it to a claim.
  /// Earlier than the fan-out's own timeout, so clocks a little apart do no harm.
  public var answerBy: Date?

  public init(
    leaseToken: Int64, eventID: UUID, createdAt: Date, kind: String, mowerName: String?,
    reason: String?, imageID: UUID?, deliveries: [Delivery]
  ) {
    self.leaseToken = leaseToken
    self.eventID = eventID
    self.createdAt = createdAt
    self.kind = kind
    self.mowerName = mowerName
    self.reason = reason
    self.imageID = imageID
    self.deliveries = deliveries
  }

  /// JSON through the project's one writer; dates as timestamps with microseconds, as
  /// PostgreSQL keeps them.
  public var encoded: [UInt8] {
    let object: [String: Any] = [
      "lease_token": leaseToken, "event_id": eventID, "created_at": createdAt, "kind": kind,
      "mower_name": mowerName as Any, "reason": reason as Any, "image_id": imageID as Any,
      "answer_by": answerBy as Any,
      "deliveries": deliveries.map { delivery -> [String: Any] in
        [
          "delivery_id": delivery.deliveryID, "notification_id": delivery.notificationID,
          "device_id": delivery.deviceID, "token": delivery.token,
          "environment": delivery.environment,
          "device_registered_at": delivery.deviceRegisteredAt,
        ]
      },
    ]
    return Array(JSON.encode(object).utf8)
  }

  /// Parses what `encoded` wrote; throws `Unreadable` naming the first field that is
  /// missing or malformed.
  public static func decode(_ bytes: [UInt8]) throws(Unreadable) -> DeliveryHandoff {
    guard let object = JSON.object(from: bytes) else {
      throw Unreadable(field: "(not a JSON object)")
    }
    let fields = Fields(object: object)
    guard let items = object["deliveries"] as? [[String: Any]] else {
      throw Unreadable(field: "deliveries")
    }
    var handoff = DeliveryHandoff(
      leaseToken: Int64(try fields.number("lease_token")),
      eventID: try fields.uuid("event_id"), createdAt: try fields.date("created_at"),
      kind: try fields.string("kind"), mowerName: object["mower_name"] as? String,
      reason: object["reason"] as? String,
      imageID: object["image_id"] is String ? try fields.uuid("image_id") : nil,
      deliveries: try items.map { item throws(Unreadable) in
        let fields = Fields(object: item)
        return Delivery(
          deliveryID: try fields.uuid("delivery_id"),
          notificationID: try fields.uuid("notification_id"),
          deviceID: try fields.uuid("device_id"), token: try fields.string("token"),
          environment: try fields.string("environment"),
          deviceRegisteredAt: try fields.date("device_registered_at"))
      })
    handoff.answerBy = object["answer_by"] is String ? try fields.date("answer_by") : nil
    return handoff
  }

  /// A handoff that cannot be read, and the field that made it so.
  public struct Unreadable: Error, Equatable, CustomStringConvertible {
    public let field: String
    public init(field: String) { self.field = field }
    public var description: String { "unreadable delivery handoff: \(field)" }
  }

  private struct Fields {
    let object: [String: Any]

    func string(_ name: String) throws(Unreadable) -> String {
      guard let value = object[name] as? String else { throw Unreadable(field: name) }
      return value
    }

    func number(_ name: String) throws(Unreadable) -> Int {
      guard let value = JSON.integer(object[name]) else { throw Unreadable(field: name) }
      return value
    }

    func uuid(_ name: String) throws(Unreadable) -> UUID {
      guard let value = UUID(uuidString: try string(name)) else { throw Unreadable(field: name) }
      return value
    }

    func date(_ name: String) throws(Unreadable) -> Date {
      guard let value = Timestamp.parse(try string(name)) else { throw Unreadable(field: name) }
      return value
    }
  }
}
