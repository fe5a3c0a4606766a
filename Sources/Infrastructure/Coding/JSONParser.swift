/// Reads JSON text (RFC 8259) into a `JSONValue`: an integer literal that fits 64 bits is
/// `.integer`, any other number `.number`.
///
/// Why hand-written: the workers import FoundationEssentials, not Foundation (ADR 0021),
/// and `JSONSerialization` lives in Foundation; `JSONDecoder` lets through in a value it
/// skips what RFC 8259 refuses (see `JSON.isObject`) and takes UTF-16.
/// `JSONParserTests` holds it to `JSONSerialization`'s verdicts and values.
struct JSONParser: ~Copyable {
  /// Deeper nesting than this is refused rather than risking the stack on hostile input
  /// (`JSONSerialization`'s limit too); callers that expect flat messages pass less.
  static let maximumDepth = 512

  private let bytes: UnsafeBufferPointer<UInt8>
  private let depthLimit: Int
  private var index = 0

  private init(bytes: UnsafeBufferPointer<UInt8>, depthLimit: Int) {
    self.bytes = bytes
    self.depthLimit = min(depthLimit, Self.maximumDepth)
  }

  /// The value the whole text holds; nil when it is not exactly one JSON value. A leading
  /// UTF-8 byte order mark is skipped (RFC 8259 section 8.1 allows it); UTF-16 and UTF-32
  /// text, which `JSONSerialization` would also decode, is refused.
  /// Arrays and objects nested more than `depthLimit` deep make the text unreadable: the
  /// recursion never goes deeper than that, whatever the input.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, depthLimit: Int = maximumDepth)
    -> JSONValue?
  {
    var parser = JSONParser(bytes: bytes, depthLimit: depthLimit)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
    guard let value = parser.value(depth: 0) else { return nil }
    parser.skipWhitespace()
    return parser.index == bytes.count ? value : nil
  }

  private mutating func value(depth: Int) -> JSONValue? {
    skipWhitespace()
    guard index < bytes.count, depth < depthLimit else { return nil }
    switch bytes[index] {
    case UInt8(ascii: "{"): return object(depth: depth).map(JSONValue.object)
    case UInt8(ascii: "["): return array(depth: depth).map(JSONValue.array)
    case UInt8(ascii: "\""): return string().map(JSONValue.string)
    case UInt8(ascii: "t"): return literal("true", .bool(true))
    case UInt8(ascii: "f"): return literal("false", .bool(false))
    case UInt8(ascii: "n"): return literal("null", .null)
    default: return number()
    }
  }

  private mutating func object(depth: Int) -> [String: JSONValue]? {
    index += 1
    var object: [String: JSONValue] = [:]
    skipWhitespace()
    if consume(UInt8(ascii: "}")) { return object }
    repeat {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else {
        return nil
      }
      skipWhitespace()
      guard consume(UInt8(ascii: ":")), let member = value(depth: depth + 1) else { return nil }
      object[key] = member
      skipWhitespace()
    } while consume(UInt8(ascii: ","))
    return consume(UInt8(ascii: "}")) ? object : nil
  }

  private mutating func array(depth: Int) -> [JSONValue]? {
    index += 1
    var array: [JSONValue] = []
    skipWhitespace()
    if consume(UInt8(ascii: "]")) { return array }
    repeat {
      guard let element = value(depth: depth + 1) else { return nil }
      array.append(element)
      skipWhitespace()
    } while consume(UInt8(ascii: ","))
    return consume(UInt8(ascii: "]")) ? array : nil
  }

  private mutating func string() -> String? {
    index += 1
    var utf8: [UInt8] = []
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""):
        return String(validating: utf8, as: UTF8.self)
      case UInt8(ascii: "\\"):
        guard escape(into: &utf8) else { return nil }
      case 0..<0x20:
        return nil  // control characters must be escaped
      default:
        utf8.append(byte)
      }
    }
    return nil
  }

  /// One escape sequence after its backslash, appended as UTF-8.
  private mutating func escape(into utf8: inout [UInt8]) -> Bool {
    guard index < bytes.count else { return false }
    let letter = bytes[index]
    index += 1
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(letter)
    case UInt8(ascii: "b"): utf8.append(0x08)
    case UInt8(ascii: "f"): utf8.append(0x0C)
    case UInt8(ascii: "n"): utf8.append(0x0A)
    case UInt8(ascii: "r"): utf8.append(0x0D)
    case UInt8(ascii: "t"): utf8.append(0x09)
    case UInt8(ascii: "u"):
      guard var code = hex4() else { return false }
      if (0xD800..<0xDC00).contains(code) {
        // A high surrogate must be followed by an escaped low one.
        guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = hex4(),
          (0xDC00..<0xE000).contains(low)
        else { return false }
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
      }
      guard let scalar = Unicode.Scalar(code) else { return false }
      utf8.append(contentsOf: UTF8.encode(scalar)!)
    default:
      return false
    }
    return true
  }

  private mutating func hex4() -> UInt32? {
    guard index + 4 <= bytes.count else { return nil }
    var code: UInt32 = 0
    for _ in 0..<4 {
      guard let digit = Hex.nibble(bytes[index]) else { return nil }
      code = code << 4 | UInt32(digit)
      index += 1
    }
    return code
  }

  /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`: an `.integer` when there is neither
  /// fraction nor exponent and it fits, a `.number` otherwise.
  private mutating func number() -> JSONValue? {
    let start = index
    _ = consume(UInt8(ascii: "-"))
    if consume(UInt8(ascii: "0")) {
      // no leading zeros
    } else {
      guard digits() > 0 else { return nil }
    }
    var integral = true
    if consume(UInt8(ascii: ".")) {
      integral = false
      guard digits() > 0 else { return nil }
    }
    if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
      integral = false
      if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
      guard digits() > 0 else { return nil }
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    if integral, let integer = Int64(text) { return .integer(integer) }
    guard let double = Double(text), double.isFinite else { return nil }
    return .number(double)
  }

  private mutating func digits() -> Int {
    let start = index
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      index += 1
    }
    return index - start
  }

  private mutating func literal(_ word: StaticString, _ result: JSONValue) -> JSONValue? {
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count else { return nil }
    for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
      return nil
    }
    index += count
    return result
  }

  private mutating func consume(_ byte: UInt8) -> Bool {
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
        index += 1
      default: return
      }
    }
  }
}
