import Infrastructure

/// The `data` of one event type, as docs/interfaces.md#event-types lists its fields: a
/// `NewEvent` is built from one, and a `RecordedEvent` reads back as one. Typed so that a
/// renamed or retyped field fails at compile time and in `EventDataTests`, not in the SQL
/// that reads `data->>'field'`.
///
/// Written through `WireCoding` like the messages between the workers, with two differences
/// the event log has always had and its SQL relies on: ids are written in lower case
/// (`LowercaseUUID`), to compare with `uuid::text`, and an optional the docs list as a field
/// is written as `null` when absent (`Nullable`) rather than left out.
public protocol EventData: Codable, Sendable, Equatable {
  /// The event type whose `data` this is.
  static var type: EventType { get }
}

/// Why a recorded event's `data` did not read as the type asked for.
public enum EventDataError: Error, Equatable, CustomStringConvertible {
  /// The event is of another type, whose `data` has other fields.
  case otherType(recorded: String, asked: EventType)
  /// The `data` is not of the shape the type describes (a row written by hand, say).
  case unreadable(WireError)

  public var description: String {
    switch self {
    case .otherType(let recorded, let asked):
      "a \(recorded) event read as \(asked.rawValue) data"
    case .unreadable(let error): error.description
    }
  }
}
