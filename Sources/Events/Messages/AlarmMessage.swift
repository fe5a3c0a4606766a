import FoundationEssentials
import Infrastructure

/// An alarm as upstream publishes it on `notifications.alarms.<mower_id>`
/// (docs/interfaces.md#ingress-alarm): what `mowdeck publish`, the benchmarks and the tests
/// send. The fan-out reads ingress into its own `IngressPayload` instead, which records what
/// each field holds, because it must name what is wrong with any bytes at all, in the
/// contract's order: decoding this type stops at the first field that is not what it wants.
public struct AlarmMessage: Codable, Sendable, Equatable {
  public let eventID: UUID
  public let mowerID: String
  public let kind: String
  public let occurredAt: Date
  public let mowerName: String?
  public let reason: String?

  public init(
    eventID: UUID = UUID(), mowerID: String, kind: String, occurredAt: Date,
    mowerName: String? = nil, reason: String? = nil
  ) {
    self.eventID = eventID
    self.mowerID = mowerID
    self.kind = kind
    self.occurredAt = occurredAt
    self.mowerName = mowerName
    self.reason = reason
  }

  enum CodingKeys: String, CodingKey {
    case eventID = "event_id"
    case mowerID = "mower_id"
    case kind
    case occurredAt = "occurred_at"
    case mowerName = "mower_name"
    case reason
  }

  /// The payload's bytes (`WireCoding`).
  public var encoded: [UInt8] { WireCoding.encode(self) }
}
