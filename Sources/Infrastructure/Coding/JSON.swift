import FoundationEssentials

/// One way to write a `JSONValue` as JSON text and to read text into one: sorted keys, so that
/// the same fact always reads the same (a log line's fields, above all). Event data and the
/// messages between the workers are typed `Codable` structs and go through `WireCoding`.
public enum JSON {
  /// Hand-written rather than `JSONEncoder` because every log line goes through it (and
  /// every event's data did once), and Foundation's writer was once a third of the fan-out's
  /// CPU time.
  public static func encode(_ value: JSONValue) -> String {
    var out = ""
    out.reserveCapacity(128)
    write(value, to: &out)
    return out
  }

  /// An object's members as JSON text, keys sorted.
  public static func encode(_ object: [String: JSONValue]) -> String {
    encode(.object(object))
  }

  private static func write(_ value: JSONValue, to out: inout String) {
    switch value {
    case .null: out += "null"
    case .bool(let bool): out += bool ? "true" : "false"
    case .integer(let integer): out += String(integer)
    case .number(let number): writeDouble(number, to: &out)
    case .string(let string): writeString(string, to: &out)
    case .array(let array):
      out += "["
      for (index, element) in array.enumerated() {
        if index > 0 { out += "," }
        write(element, to: &out)
      }
      out += "]"
    case .object(let object):
      out += "{"
      for (index, key) in object.keys.sorted().enumerated() {
        if index > 0 { out += "," }
        writeString(key, to: &out)
        out += ":"
        write(object[key]!, to: &out)
      }
      out += "}"
    }
  }

  private static func writeDouble(_ double: Double, to out: inout String) {
    guard double.isFinite else {
      out += "null"
      return
    }
    out += String(double)
  }

  private static func writeString(_ string: String, to out: inout String) {
    out += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default:
        out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }

  /// Parses a JSON object; nil when the text is not one, or nests arrays and objects more
  /// than `maximumDepth` deep (the object itself is one level).
  public static func object(from bytes: some Collection<UInt8>, maximumDepth: Int = 512)
    -> [String: JSONValue]?
  {
    value(from: bytes, maximumDepth: maximumDepth)?.object
  }

  /// Parses any JSON value (RFC 8259, UTF-8; see `JSONParser`); nil when the text is not
  /// exactly one.
  public static func value(from bytes: some Collection<UInt8>, maximumDepth: Int = 512)
    -> JSONValue?
  {
    if let parsed = bytes.withContiguousStorageIfAvailable({
      JSONParser.parse($0, depthLimit: maximumDepth)
    }) {
      return parsed
    }
    return Array(bytes).withUnsafeBufferPointer { JSONParser.parse($0, depthLimit: maximumDepth) }
  }

  /// How deeply `bytes` nest arrays and objects, counted without parsing (brackets inside
  /// strings do not count), stopping once past `limit`: tells "too deep" from "not JSON".
  public static func nestingExceeds(_ limit: Int, in bytes: some Collection<UInt8>) -> Bool {
    var depth = 0
    var inString = false
    var escaped = false
    for byte in bytes {
      if inString {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""): inString = true
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        depth += 1
        if depth > limit { return true }
      case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
      default: break
      }
    }
    return false
  }
}
