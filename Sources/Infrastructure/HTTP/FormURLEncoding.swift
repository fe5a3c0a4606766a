/// `application/x-www-form-urlencoded` bodies (the WHATWG URL standard's form coding), as
/// OAuth 2 token requests carry their parameters (RFC 6749 appendix B).
public enum FormURLEncoding {
  /// `name=value&...`, every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`)
  /// percent-encoded.
  public static func encode(_ fields: [(name: String, value: String)]) -> String {
    fields.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
  }

  /// The fields of a body, the first of each name; nil when a `%` is not followed by two
  /// hex digits or the result is not UTF-8.
  public static func decode(_ body: [UInt8]) -> [String: String]? {
    var fields: [String: String] = [:]
    for pair in body.split(separator: UInt8(ascii: "&")) {
      let parts = pair.split(
        separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = unescape(parts[0]),
        let value = parts.count > 1 ? unescape(parts[1]) : ""
      else { return nil }
      if fields[name] == nil { fields[name] = value }
    }
    return fields
  }

  private static func escape(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        out += "%" + Hex.encode([byte]).uppercased()
      }
    }
    return out
  }

  private static func unescape(_ bytes: ArraySlice<UInt8>) -> String? {
    var out: [UInt8] = []
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      if byte == UInt8(ascii: "+") {
        out.append(UInt8(ascii: " "))
      } else if byte == UInt8(ascii: "%") {
        guard bytes.endIndex - index >= 3, let high = Hex.nibble(bytes[index + 1]),
          let low = Hex.nibble(bytes[index + 2])
        else { return nil }
        out.append(high << 4 | low)
        index += 2
      } else {
        out.append(byte)
      }
      index += 1
    }
    return String(validating: out, as: UTF8.self)
  }
}
