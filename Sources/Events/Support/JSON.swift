import Foundation

/// One way to turn event data and log fields into JSON text: sorted keys, so that the
/// same fact always reads the same, and values reduced to what JSON can hold.
public enum JSON {
  ///
  /// Hand-written rather than `JSONSerialization` because every event and log line goes
  /// through it, and Foundation's writer (bridging, dynamic casts) was a third of the
  /// fan-out's CPU time.
  public static func encode(_ object: [String: Any]) -> String {
    var out = ""
    out.reserveCapacity(128)
    write(object, to: &out)
    return out
  }

  private static func write(_ value: Any?, to out: inout String) {
    guard let value, !(value is NSNull) else {
      out += "null"
      return
    }
    // Exact Swift types first: `is Bool` is also true of a bridged NSNumber 1, and the
    // reverse, so the dynamic type decides.
    switch value {
    case let string as String:
      writeString(string, to: &out)
    case let bool as Bool where type(of: value) == Bool.self:
      out += bool ? "true" : "false"
    case let int as Int where type(of: value) == Int.self:
      out += String(int)
    case let int as Int64 where type(of: value) == Int64.self:
      out += String(int)
    case let int as UInt64 where type(of: value) == UInt64.self:
      out += String(int)
    case let int as Int32 where type(of: value) == Int32.self:
      out += String(int)
    case let double as Double where type(of: value) == Double.self:
      writeDouble(double, to: &out)
    case let number as NSNumber:
      // Numbers parsed by JSONSerialization (re-encoding a stored event).
      if String(describing: type(of: number)).contains("Boolean") {
        out += number.boolValue ? "true" : "false"
      } else if ["d", "f"].contains(String(cString: number.objCType)) {
        writeDouble(number.doubleValue, to: &out)
      } else {
        out += String(number.int64Value)
      }
    case let date as Date:
      writeString(Timestamp.format(date), to: &out)
    case let uuid as UUID:
      writeString(uuid.uuidString.lowercased(), to: &out)
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

  /// Parses a JSON object; nil when the text is not one.
  public static func object(from bytes: some Collection<UInt8>) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [])) as? [String: Any]
  }
}
