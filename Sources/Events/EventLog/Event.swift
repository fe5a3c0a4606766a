import FoundationEssentials
import Infrastructure

/// A fact to append. Its data holds what an operator needs to answer "what happened and
/// why", and never a secret, a signature or a whole device token.
public struct NewEvent: Sendable {
  public let type: EventType
  public let correlationID: UUID
  public let causationID: UUID?
  public let dataJSON: String

  /// The event whose `data` is `data`, of the type that data belongs to.
  public init<Fields: EventData>(_ data: Fields, correlationID: UUID, causationID: UUID? = nil) {
    type = Fields.type
    self.correlationID = correlationID
    self.causationID = causationID
    dataJSON = String(decoding: WireCoding.encode(data), as: UTF8.self)
  }
}

/// A fact read back from the log.
public struct RecordedEvent: Sendable {
  public let position: Int64
  public let recordedAt: Date
  public let type: String
  public let correlationID: UUID
  public let causationID: UUID?
  /// The `data` column as PostgreSQL prints `jsonb`.
  public let dataJSON: String

  init(row: Row) throws(DatabaseError) {
    position = Int64(try row.int("position"))
    recordedAt = try row.date("recorded_at")
    type = try row.string("type")
    correlationID = try row.uuid("correlation_id")
    causationID = try row.optionalUUID("causation_id")
    dataJSON = try row.string("data")
  }

  /// The data as the type of this event's data: `event.decode(PhotoFailed.self).reason`.
  /// Throws when the event is of another type, so that a reader never takes one event's
  /// fields for another's.
  public func decode<Fields: EventData>(_: Fields.Type) throws(EventDataError) -> Fields {
    guard type == Fields.type.rawValue else {
      throw .otherType(recorded: type, asked: Fields.type)
    }
    do {
      return try WireCoding.decode(Fields.self, from: Array(dataJSON.utf8))
    } catch {
      throw .unreadable(error)
    }
  }
}
