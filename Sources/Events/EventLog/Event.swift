import FoundationEssentials
import Infrastructure

/// A fact to append. `data` holds what an operator needs to answer "what happened and
/// why", and never a secret, a signature or a whole device token.
public struct NewEvent: Sendable {
  public let type: EventType
  public let correlationID: UUID
  public let causationID: UUID?
  public let dataJSON: String

  public init(
    _ type: EventType, correlationID: UUID, causationID: UUID? = nil,
    data: [String: any Sendable] = [:]
  ) {
    self.type = type
    self.correlationID = correlationID
    self.causationID = causationID
    self.dataJSON = JSON.encode(data)
  }
}

/// A fact read back from the log.
public struct RecordedEvent: Sendable {
  public let position: Int64
  public let recordedAt: Date
  public let type: String
  public let correlationID: UUID
  public let causationID: UUID?
  public let dataJSON: String

  init(row: Row) throws(DatabaseError) {
    position = Int64(try row.int("position"))
    recordedAt = try row.date("recorded_at")
    type = try row.string("type")
    correlationID = try row.uuid("correlation_id")
    causationID = try row.optionalUUID("causation_id")
    dataJSON = try row.string("data")
  }

  /// The data as a dictionary, for tools that print or compare it.
  public var data: [String: Any] { JSON.object(from: Array(dataJSON.utf8)) ?? [:] }
}
