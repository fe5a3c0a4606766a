import FoundationEssentials
import Infrastructure

/// One decision's deliveries, committed by the fan-out already leased, offered to one APNs
/// worker by NATS request/reply so the push leaves without a claim round trip (ADR 0016).
///
/// It carries everything the push needs, the device token included: NATS between our own
/// stages is not the event log, which still sees token prefixes only. The worker answers
/// `taken` once the pushes have started, or `declined`; anything else (no answer, no
/// worker listening) and the fan-out releases the lease, so the deliveries go the claim
/// path at once instead of waiting for the lease to lapse.
public struct DeliveryHandoff: Codable, Sendable, Equatable {
  public struct Delivery: Codable, Sendable, Equatable {
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

    enum CodingKeys: String, CodingKey {
      case deliveryID = "delivery_id"
      case notificationID = "notification_id"
      case deviceID = "device_id"
      case token, environment
      case deviceRegisteredAt = "device_registered_at"
    }
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
  /// The deliveries' `created_at`: the alarm's receipt (when JetStream stored it).
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

  enum CodingKeys: String, CodingKey {
    case leaseToken = "lease_token"
    case eventID = "event_id"
    case createdAt = "created_at"
    case kind
    case mowerName = "mower_name"
    case reason
    case imageID = "image_id"
    case deliveries
    case answerBy = "answer_by"
  }

  /// The offer's JSON (`WireCoding`).
  public var encoded: [UInt8] { WireCoding.encode(self) }

  /// Reads what `encoded` wrote; throws `Unreadable` naming the first field that is missing
  /// or malformed.
  public static func decode(_ bytes: [UInt8]) throws(Unreadable) -> DeliveryHandoff {
    do {
      return try WireCoding.decode(DeliveryHandoff.self, from: bytes)
    } catch {
      throw Unreadable(field: error.field ?? "(not a JSON object)")
    }
  }

  /// A handoff that cannot be read, and the field that made it so.
  public struct Unreadable: Error, Equatable, CustomStringConvertible {
    public let field: String
    public init(field: String) { self.field = field }
    public var description: String { "unreadable delivery handoff: \(field)" }
  }
}
