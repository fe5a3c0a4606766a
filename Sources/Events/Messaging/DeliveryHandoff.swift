import Foundation

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

    /// The first characters of the token: enough to tell devices apart in the event log,
    /// never the whole token.
    public var tokenPrefix: String { String(token.prefix(8)) }
  }

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

  public var encoded: [UInt8] {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    // Encoding plain strings, numbers and dates cannot fail.
    return Array((try? encoder.encode(self)) ?? Data())
  }

  /// Throws `DecodingError` for anything that is not a handoff.
  public static func decode(_ bytes: [UInt8]) throws -> DeliveryHandoff {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    return try decoder.decode(DeliveryHandoff.self, from: Data(bytes))
  }
}
