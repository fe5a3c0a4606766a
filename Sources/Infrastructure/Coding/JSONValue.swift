/// Any JSON value, typed: what `JSONParser` reads and `JSON.encode` writes. For the few places
/// that carry JSON whose shape they do not know (`mowdeck trace` prints every field of every
/// event, also rows an older version wrote; the sandboxes record whatever a client sent; a log
/// line's fields). Messages of a known shape are `Codable` structs; this is not for them.
public enum JSONValue: Codable, Hashable, Sendable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  /// The members of a JSON object, by name; none when `json` is not one.
  public static func fields(of json: String) -> [String: JSONValue] {
    JSON.object(from: Array(json.utf8)) ?? [:]
  }

  /// `bytes` as JSON (RFC 8259, UTF-8); nil when they are not exactly one JSON value.
  public static func parse(_ bytes: [UInt8]) -> JSONValue? {
    JSON.value(from: bytes)
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
    return JSON.encode(self)
  }
}

/// Reading a value whose shape the reader expects: each is nil when the value is another kind.
extension JSONValue {
  /// The member named `key` of an object; nil when there is none or this is not an object.
  public subscript(key: String) -> JSONValue? {
    if case .object(let object) = self { return object[key] }
    return nil
  }

  public var string: String? {
    if case .string(let string) = self { return string }
    return nil
  }

  public var bool: Bool? {
    if case .bool(let bool) = self { return bool }
    return nil
  }

  /// A number as an integer: one written as an integer, or a number without a fraction
  /// that fits (`3.0`).
  public var integer: Int? {
    switch self {
    case .integer(let integer): return Int(exactly: integer)
    case .number(let number): return Int(exactly: number)
    default: return nil
    }
  }

  /// A number, whether it was written with a fraction or not.
  public var number: Double? {
    switch self {
    case .integer(let integer): return Double(integer)
    case .number(let number): return number
    default: return nil
    }
  }

  public var array: [JSONValue]? {
    if case .array(let array) = self { return array }
    return nil
  }

  public var object: [String: JSONValue]? {
    if case .object(let object) = self { return object }
    return nil
  }

  public var isNull: Bool { self == .null }
}

/// Literals, so that a test's or a tool's JSON reads as JSON: `["ok": true, "n": 2]`. Not
/// `nil` (write `.null`): a `nil` meant for a `JSONValue?` would silently become `.null`.
extension JSONValue: ExpressibleByBooleanLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(integerLiteral value: Int64) { self = .integer(value) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(stringLiteral value: String) { self = .string(value) }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
