import FoundationEssentials

/// One way to turn log fields and other untyped objects into JSON text: sorted keys, so that
/// the same fact always reads the same, and values reduced to what JSON can hold. Event data
/// and the messages between the workers are typed and go through `WireCoding` instead.
public enum JSON {
  /// JSON's `null`, as the parser returns it and as a value to encode.
  public static let null = Null()

  /// The type of `JSON.null` (Foundation's `NSNull` is not available to the workers).
  public struct Null: Sendable, Hashable {}

  /// Hand-written rather than `JSONSerialization` because every log line goes through it
  /// (and every event's data did once), and Foundation's writer (bridging, dynamic
  /// casts) was a third of the fan-out's CPU time.
  public static func encode(_ object: [String: Any]) -> String {
    var out = ""
    out.reserveCapacity(128)
    write(object, to: &out)
    return out
  }

  private static func write(_ value: Any?, to out: inout String) {
    guard let value, !(value is Null) else {
      out += "null"
      return
    }
    // The dynamic type decides, before any cast: cheaper than a chain of `as?` casts.
    switch ObjectIdentifier(type(of: value)) {
    case ObjectIdentifier(String.self): writeString(value as! String, to: &out)
    case ObjectIdentifier(Bool.self): out += (value as! Bool) ? "true" : "false"
    case ObjectIdentifier(Int.self): out += String(value as! Int)
    case ObjectIdentifier(Int64.self): out += String(value as! Int64)
    case ObjectIdentifier(UInt64.self): out += String(value as! UInt64)
    case ObjectIdentifier(Int32.self): out += String(value as! Int32)
    case ObjectIdentifier(Double.self): writeDouble(value as! Double, to: &out)
    case ObjectIdentifier(Date.self): writeString(Timestamp.format(value as! Date), to: &out)
    case ObjectIdentifier(UUID.self):
      writeString((value as! UUID).uuidString.lowercased(), to: &out)
    default: writeOther(value, to: &out)
    }
  }

  private static func writeOther(_ value: Any, to out: inout String) {
    switch value {
    case let string as String:
      writeString(string, to: &out)
    case let dictionary as [String: Any]:
      out += "{"
      for (index, key) in dictionary.keys.sorted().enumerated() {
        if index > 0 { out += "," }
        writeString(key, to: &out)
        out += ":"
        write(dictionary[key]!, to: &out)
      }
      out += "}"
    case let array as [Any]:
      out += "["
      for (index, element) in array.enumerated() {
        if index > 0 { out += "," }
        write(element, to: &out)
      }
      out += "]"
    default:
      // A nested Optional (an `Any` holding `String?`) unwraps; anything else is described.
      let mirror = Mirror(reflecting: value)
      if mirror.displayStyle == .optional {
        write(mirror.children.first?.value, to: &out)
      } else {
        writeString(String(describing: value), to: &out)
      }
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
    -> [String: Any]?
  {
    value(from: bytes, maximumDepth: maximumDepth) as? [String: Any]
  }

  /// Parses any JSON value (see `JSONParser` for the Swift types); nil when the text is
  /// not exactly one.
  public static func value(from bytes: some Collection<UInt8>, maximumDepth: Int = 512) -> Any? {
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

  /// A parsed number as an integer: an `Int`, or a `Double` without a fraction that fits.
  public static func integer(_ value: Any?) -> Int? {
    if let integer = value as? Int { return integer }
    guard let double = value as? Double else { return nil }
    return Int(exactly: double)
  }

  /// A parsed number as a `Double`, whether it was written with a fraction or not.
  public static func number(_ value: Any?) -> Double? {
    if let integer = value as? Int { return Double(integer) }
    return value as? Double
  }
}
