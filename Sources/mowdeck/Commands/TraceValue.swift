import Infrastructure

/// One value of an event's `data`, as `mowdeck trace` prints it. The trace shows every field
/// of every event without knowing each type's fields, so that it also prints rows an older
/// version wrote, or of a type this build does not know; the typed `EventData` is for code
/// that needs a field.
enum TraceValue: Codable, Equatable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([TraceValue])
  case object([String: TraceValue])

  /// The fields of `dataJSON`, by name; none when it is not a JSON object.
  static func fields(of dataJSON: String) -> [String: TraceValue] {
    (try? WireCoding.decode([String: TraceValue].self, from: Array(dataJSON.utf8))) ?? [:]
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let integer = try? container.decode(Int64.self) {
      self = .integer(integer)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([TraceValue].self) {
      self = .array(array)
    } else {
      self = .object(try container.decode([String: TraceValue].self))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let bool): try container.encode(bool)
    case .integer(let integer): try container.encode(integer)
    case .number(let number): try container.encode(number)
    case .string(let string): try container.encode(string)
    case .array(let array): try container.encode(array)
    case .object(let object): try container.encode(object)
    }
  }

  /// As a trace line shows it: text as it is, anything else as JSON (`12`, `true`, `null`).
  var text: String {
    if case .string(let string) = self { return string }
    return String(decoding: WireCoding.encode(self), as: UTF8.self)
  }
}
