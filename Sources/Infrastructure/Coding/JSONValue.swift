/// Any JSON value, for the few places that carry JSON whose shape they do not know: `mowdeck
/// trace` prints every field of every event (also rows an older version wrote), and the APNs
/// sandbox records whatever payload a client sent. Messages of a known shape are `Codable`
/// structs; this is not for them.
public enum JSONValue: Codable, Equatable, Sendable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  /// The members of a JSON object, by name; none when `json` is not one.
  public static func fields(of json: String) -> [String: JSONValue] {
    (try? WireCoding.decode([String: JSONValue].self, from: Array(json.utf8))) ?? [:]
  }

  /// `bytes` as JSON; nil when they are not JSON.
  public static func parse(_ bytes: [UInt8]) -> JSONValue? {
    try? WireCoding.decode(JSONValue.self, from: bytes)
  }

  public init(from decoder: any Decoder) throws {
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
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
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

  /// Text as it is, anything else as JSON (`12`, `true`, `null`), as a trace line shows it.
  public var text: String {
    if case .string(let string) = self { return string }
    return String(decoding: WireCoding.encode(self), as: UTF8.self)
  }
}
