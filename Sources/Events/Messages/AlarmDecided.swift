import FoundationEssentials
import Infrastructure

/// `<prefix>mowdeck.fanout.decided`: the fan-out's word, after the commit, that one ingress
/// message is handled (docs/interfaces.md#nats-subjects). `mowdeck replay` and the
/// benchmarks wait for it; nothing else depends on it.
public struct AlarmDecided: Codable, Sendable, Equatable {
  /// The message's sequence in the stream it came from.
  public let streamSequence: UInt64
  /// The alarm's `event_id`, or the id a message without a usable one is correlated by.
  public let eventID: UUID
  /// `pushed`, `suppressed`, `duplicate`, `rejected` or `already_handled`.
  public let outcome: String
  public let mowerID: String?

  public init(streamSequence: UInt64, eventID: UUID, outcome: String, mowerID: String?) {
    self.streamSequence = streamSequence
    self.eventID = eventID
    self.outcome = outcome
    self.mowerID = mowerID
  }

  enum CodingKeys: String, CodingKey {
    case streamSequence = "stream_seq"
    case eventID = "event_id"
    case outcome
    case mowerID = "mower_id"
  }
}
