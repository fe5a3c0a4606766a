extension JSON {
  /// Whether `bytes` are exactly one JSON object that `object(from:maximumDepth:)` would read,
  /// found without building it and without recursion, whatever the depth of the input.
  ///
  /// For text about to be read by `JSONDecoder` (`WireCoding`), which checks a string, a
  /// number or a comma only where the decoded type reads it: in a field it skips it lets
  /// through what RFC 8259 refuses (invalid UTF-8, a lone surrogate escape, a raw control
  /// character, `01`, `1e999`, a trailing comma), and it takes UTF-16 and UTF-32 text.
  /// This check refuses all of them, as `JSONParser` does.
  public static func isObject(_ bytes: some Collection<UInt8>, maximumDepth: Int) -> Bool {
    if let verdict = bytes.withContiguousStorageIfAvailable({
      JSONValidator.isObject($0, depthLimit: maximumDepth)
    }) {
      return verdict
    }
    return Array(bytes).withUnsafeBufferPointer {
      JSONValidator.isObject($0, depthLimit: maximumDepth)
    }
  }
}

/// RFC 8259 checked byte by byte with `JSONParser`'s rules and verdicts, building nothing:
/// the same grammar, UTF-8 only (a leading byte order mark skipped), strings well-formed
/// UTF-8 whose `\u` escapes pair their surrogates, numbers that are an `Int` or a finite
/// `Double`, no value deeper than the limit. `JSONValidatorTests` hold the two together.
struct JSONValidator: ~Copyable {
  private let bytes: UnsafeBufferPointer<UInt8>
  private var index = 0

  private init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  static func isObject(_ bytes: UnsafeBufferPointer<UInt8>, depthLimit: Int) -> Bool {
    var validator = JSONValidator(bytes: bytes)
    return validator.object(depthLimit: min(depthLimit, JSONParser.maximumDepth))
  }

  /// The containers open around the current position are a stack of flags (true for an
  /// object), not of calls: a 30,000-deep array costs no stack, and stops at the limit.
  private mutating func object(depthLimit: Int) -> Bool {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    skipWhitespace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return false }
    var open: [Bool] = []
    while true {
      // A value is due, `open.count` levels deep (`JSONParser`'s depth of it).
      skipWhitespace()
      guard index < bytes.count, open.count < depthLimit else { return false }
      switch bytes[index] {
      case UInt8(ascii: "{"):
        index += 1
        skipWhitespace()
        if !consume(UInt8(ascii: "}")) {
          open.append(true)
          guard memberName() else { return false }
          continue
        }
      case UInt8(ascii: "["):
        index += 1
        skipWhitespace()
        if !consume(UInt8(ascii: "]")) {
          open.append(false)
          continue
        }
      case UInt8(ascii: "\""):
        index += 1
        guard string() else { return false }
      case UInt8(ascii: "t"): guard literal("true") else { return false }
      case UInt8(ascii: "f"): guard literal("false") else { return false }
      case UInt8(ascii: "n"): guard literal("null") else { return false }
      default: guard number() else { return false }
      }
      // A value has ended: close the containers it ends, up to the next element or member.
      while true {
        skipWhitespace()
        guard let inObject = open.last else { return index == bytes.count }
        if consume(UInt8(ascii: ",")) {
          guard !inObject || memberName() else { return false }
          break
        }
        guard consume(UInt8(ascii: inObject ? "}" : "]")) else { return false }
        open.removeLast()
      }
    }
  }

  /// A member's name and its colon.
  private mutating func memberName() -> Bool {
    skipWhitespace()
    guard consume(UInt8(ascii: "\"")), string() else { return false }
    skipWhitespace()
    return consume(UInt8(ascii: ":"))
  }

  /// The rest of a string after its opening quote.
  private mutating func string() -> Bool {
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""): return true
      case UInt8(ascii: "\\"): guard escape() else { return false }
      case 0..<0x20: return false  // control characters must be escaped
      case 0x20..<0x80: continue
      default: guard utf8Continuation(after: byte) else { return false }
      }
    }
    return false
  }

  /// The bytes after a UTF-8 lead byte, well-formed as Unicode's table 3-7 has it (no
  /// overlong form, no surrogate, nothing past U+10FFFF): what `String(validating:)`, and
  /// so `JSONParser`, accepts.
  private mutating func utf8Continuation(after lead: UInt8) -> Bool {
    let count: Int
    var first: ClosedRange<UInt8> = 0x80...0xBF
    switch lead {
    case 0xC2...0xDF: count = 1
    case 0xE0: (count, first) = (2, 0xA0...0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: count = 2
    case 0xED: (count, first) = (2, 0x80...0x9F)
    case 0xF0: (count, first) = (3, 0x90...0xBF)
    case 0xF1...0xF3: count = 3
    case 0xF4: (count, first) = (3, 0x80...0x8F)
    default: return false
    }
    guard index + count <= bytes.count, first.contains(bytes[index]) else { return false }
    for offset in 1..<count where !(0x80...0xBF).contains(bytes[index + offset]) {
      return false
    }
    index += count
    return true
  }

  /// One escape sequence after its backslash.
  private mutating func escape() -> Bool {
    guard index < bytes.count else { return false }
    let letter = bytes[index]
    index += 1
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
      UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
      return true
    case UInt8(ascii: "u"):
      guard let code = hex4() else { return false }
      switch code {
      case 0xD800..<0xDC00:
        // A high surrogate must be followed by an escaped low one.
        guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = hex4() else {
          return false
        }
        return (0xDC00..<0xE000).contains(low)
      case 0xDC00..<0xE000: return false  // a low surrogate alone is no character
      default: return true
      }
    default:
      return false
    }
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

  /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?` that `JSONParser` can hold: an integer
  /// that fits an `Int`, or any number as a finite `Double` (`1e999` is none).
  private mutating func number() -> Bool {
    let start = index
    _ = consume(UInt8(ascii: "-"))
    if !consume(UInt8(ascii: "0")) {
      guard digits() > 0 else { return false }
    }
    var integral = true
    if consume(UInt8(ascii: ".")) {
      integral = false
      guard digits() > 0 else { return false }
    }
    if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
      integral = false
      if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
      guard digits() > 0 else { return false }
    }
    // Eighteen characters, sign included, always fit an `Int`: no text to make for them.
    if integral && index - start <= 18 { return true }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    if integral && Int(text) != nil { return true }
    return Double(text)?.isFinite == true
  }

  private mutating func digits() -> Int {
    let start = index
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      index += 1
    }
    return index - start
  }

  private mutating func literal(_ word: StaticString) -> Bool {
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count else { return false }
    for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
      return false
    }
    index += count
    return true
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
