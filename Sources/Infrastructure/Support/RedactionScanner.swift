/// The scan behind `Redaction.redact`, one pass over one text: copies the bytes between
/// secrets, and each secret's replacement. Every rule is a few byte comparisons at the
/// start of a run of base64url characters, so text without secrets costs little more than
/// reading it.
struct RedactionScanner {
  /// A run at least this long, of letters and digits both, is taken for a secret.
  static let longTokenLength = 32
  /// How much of a long token stays visible (as `Directory.tokenPrefix`).
  static let keptPrefix = 8

  let bytes: UnsafeBufferPointer<UInt8>
  /// The redacted text so far; empty until the first secret is found.
  private var out: [UInt8] = []
  /// Bytes before this index are in `out` already.
  private var copied = 0
  private var changed = false

  init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  /// The redacted bytes, or nil when nothing was secret.
  consuming func redacted() -> [UInt8]? {
    var index = 0
    while index < bytes.count {
      guard Self.isTokenByte(bytes[index]) else {
        index += 1
        continue
      }
      var end = index + 1
      while end < bytes.count && Self.isTokenByte(bytes[end]) { end += 1 }
      index = inspect(index..<end)
    }
    guard changed else { return nil }
    out.append(contentsOf: bytes[copied...])
    return out
  }

  /// Decides what one run of token characters starts; returns where the scan goes on.
  private mutating func inspect(_ run: Range<Int>) -> Int {
    let resume: Int?
    switch byte(at: run.upperBound) {
    case UInt8(ascii: ":"): resume = userinfo(afterScheme: run) ?? registrationToken(run)
    case UInt8(ascii: "="): resume = keyValue(run)
    case UInt8(ascii: " "): resume = authorization(run) ?? privateKey(run) ?? keyValue(run)
    case UInt8(ascii: "."): resume = jwt(run)
    default: resume = nil
    }
    return resume ?? longToken(run)
  }

  // MARK: The rules

  /// `scheme://userinfo@host`: everything before the authority's last `@`.
  private mutating func userinfo(afterScheme scheme: Range<Int>) -> Int? {
    let start = scheme.upperBound + 3
    guard byte(at: scheme.upperBound + 1) == UInt8(ascii: "/"),
      byte(at: scheme.upperBound + 2) == UInt8(ascii: "/"), Self.isLetter(bytes[scheme.lowerBound])
    else { return nil }
    var index = start
    var lastAt: Int?
    while index < bytes.count, !Self.endsAuthority(bytes[index]) {
      if bytes[index] == UInt8(ascii: "@") { lastAt = index }
      index += 1
    }
    guard let lastAt, lastAt > start else { return nil }
    replace(start..<lastAt, with: Redaction.mask.utf8)
    return lastAt
  }

  /// An FCM registration token, `<instance id>:APA91b…`: the id before the colon is too
  /// short to pass for a secret by itself, so the token is cut as one, to its first
  /// characters.
  private mutating func registrationToken(_ instanceID: Range<Int>) -> Int? {
    guard find("APA91b", from: instanceID.upperBound + 1, within: 6) != nil else { return nil }
    var end = instanceID.upperBound + 1
    while end < bytes.count && (Self.isTokenByte(bytes[end]) || bytes[end] == UInt8(ascii: ":")) {
      end += 1
    }
    shorten(instanceID.lowerBound..<end)
    return end
  }

  /// `password=…` (libpq's key/value form, spaces around `=` allowed, quoted or not),
  /// `…secret=`, `…token=`, and the `s=` signature in a query string.
  private mutating func keyValue(_ key: Range<Int>) -> Int? {
    let isSignature =
      key.count == 1 && bytes[key.lowerBound] == UInt8(ascii: "s")
      && (byte(at: key.lowerBound - 1) == UInt8(ascii: "?")
        || byte(at: key.lowerBound - 1) == UInt8(ascii: "&"))
    guard
      isSignature || endsWith(key, "password") || endsWith(key, "secret")
        || endsWith(key, "token")
    else { return nil }
    var start = key.upperBound
    while byte(at: start) == UInt8(ascii: " ") { start += 1 }
    guard byte(at: start) == UInt8(ascii: "=") else { return nil }
    start += 1
    while byte(at: start) == UInt8(ascii: " ") { start += 1 }
    var end = start
    if byte(at: start) == UInt8(ascii: "'") {
      // libpq's quoted value: up to the closing quote, backslash escapes inside.
      end += 1
      while end < bytes.count && bytes[end] != UInt8(ascii: "'") {
        end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
      }
      end = min(end + 1, bytes.count)
    } else {
      while end < bytes.count && !Self.endsValue(bytes[end]) { end += 1 }
    }
    guard end > start else { return nil }
    replace(start..<end, with: Redaction.mask.utf8)
    return end
  }

  /// `Bearer <token>`, and `vapid t=<jwt>, k=<key>` (Web Push's authorization).
  private mutating func authorization(_ scheme: Range<Int>) -> Int? {
    let isBearer = equals(scheme, "bearer")
    guard isBearer || equals(scheme, "vapid") else { return nil }
    var index = scheme.upperBound
    while byte(at: index) == UInt8(ascii: " ") { index += 1 }
    let start = index
    while index < bytes.count {
      // A vapid value is `t=…, k=…`: its comma and the space after it belong to it.
      if !isBearer && bytes[index] == UInt8(ascii: ",") {
        index += 1
        while byte(at: index) == UInt8(ascii: " ") { index += 1 }
        continue
      }
      if Self.endsValue(bytes[index]) || bytes[index] == UInt8(ascii: ",") { break }
      index += 1
    }
    guard index > start else { return nil }
    replace(start..<index, with: Redaction.mask.utf8)
    return index
  }

  /// The body of `-----BEGIN … PRIVATE KEY-----` up to its END line, or to the end of the
  /// text when that was cut off.
  private mutating func privateKey(_ run: Range<Int>) -> Int? {
    guard equals(run, "-----begin"),
      let headerEnd = find("-----", from: run.upperBound, within: 64),
      find("PRIVATE KEY", from: run.upperBound, within: headerEnd - run.upperBound) != nil
    else { return nil }
    let start = headerEnd + 5
    let end = find("-----END", from: start, within: bytes.count) ?? bytes.count
    guard end > start else { return nil }
    replace(start..<end, with: Redaction.mask.utf8)
    return end
  }

  /// `eyJ….….…`: a JSON header, payload and signature, base64url, joined by dots.
  private mutating func jwt(_ run: Range<Int>) -> Int? {
    guard run.count >= 3, bytes[run.lowerBound] == UInt8(ascii: "e"),
      bytes[run.lowerBound + 1] == UInt8(ascii: "y"), bytes[run.lowerBound + 2] == UInt8(ascii: "J")
    else { return nil }
    var end = run.upperBound
    var dots = 0
    while end < bytes.count && (Self.isTokenByte(bytes[end]) || bytes[end] == UInt8(ascii: ".")) {
      if bytes[end] == UInt8(ascii: ".") { dots += 1 }
      end += 1
    }
    guard dots >= 2 else { return nil }
    shorten(run.lowerBound..<end)
    return end
  }

  /// A long run of letters and digits both: a device token, key or session token. UUIDs
  /// (ids operators search by) and long words such as metric names stay.
  private mutating func longToken(_ run: Range<Int>) -> Int {
    guard run.count >= Self.longTokenLength, !isUUID(run) else { return run.upperBound }
    var letters = false
    var digits = false
    for index in run {
      if Self.isLetter(bytes[index]) { letters = true }
      if Self.isDigit(bytes[index]) { digits = true }
    }
    if letters && digits { shorten(run) }
    return run.upperBound
  }

  // MARK: Writing

  private mutating func replace(_ range: Range<Int>, with replacement: some Sequence<UInt8>) {
    if !changed {
      changed = true
      out.reserveCapacity(bytes.count)
    }
    out.append(contentsOf: bytes[copied..<range.lowerBound])
    out.append(contentsOf: replacement)
    copied = range.upperBound
  }

  /// Keeps the first characters of a secret and marks the rest as cut; a secret too
  /// short for that goes whole.
  private mutating func shorten(_ range: Range<Int>) {
    guard range.count > 2 * Self.keptPrefix else {
      replace(range, with: Redaction.mask.utf8)
      return
    }
    let kept = range.lowerBound..<(range.lowerBound + Self.keptPrefix)
    replace(range, with: Array(bytes[kept]) + Array("…".utf8))
  }

  // MARK: Reading

  private func byte(at index: Int) -> UInt8 {
    index >= 0 && index < bytes.count ? bytes[index] : 0
  }

  /// Whether the bytes of `range` are `word` (lowercase ASCII), ignoring case.
  private func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
    range.count == word.utf8CodeUnitCount && endsWith(range, word)
  }

  private func endsWith(_ range: Range<Int>, _ word: StaticString) -> Bool {
    let count = word.utf8CodeUnitCount
    guard range.count >= count else { return false }
    let start = range.upperBound - count
    return word.withUTF8Buffer { word in
      (0..<count).allSatisfy { Self.lowercased(bytes[start + $0]) == word[$0] }
    }
  }

  /// Where `word` (exact case) starts within `limit` bytes from `start`.
  private func find(_ word: StaticString, from start: Int, within limit: Int) -> Int? {
    let count = word.utf8CodeUnitCount
    let last = min(bytes.count, start + limit) - count
    guard start <= last else { return nil }
    return word.withUTF8Buffer { word in
      (start...last).first { at in (0..<count).allSatisfy { bytes[at + $0] == word[$0] } }
    }
  }

  /// `8-4-4-4-12` hexadecimal digits.
  private func isUUID(_ run: Range<Int>) -> Bool {
    guard run.count == 36 else { return false }
    return run.allSatisfy { index in
      let offset = index - run.lowerBound
      let isDash = offset == 8 || offset == 13 || offset == 18 || offset == 23
      return isDash ? bytes[index] == UInt8(ascii: "-") : Self.isHexDigit(bytes[index])
    }
  }

  // MARK: Classes of byte

  /// base64url's alphabet, which holds hex digits too.
  private static func isTokenByte(_ byte: UInt8) -> Bool {
    isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (65...90).contains(byte) || (97...122).contains(byte)
  }

  private static func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || (97...102).contains(lowercased(byte))
  }

  private static func lowercased(_ byte: UInt8) -> UInt8 {
    (65...90).contains(byte) ? byte + 32 : byte
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || (9...13).contains(byte)
  }

  /// The end of a URL's authority (RFC 3986), or of the text around it.
  private static func endsAuthority(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\""),
      UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
      UInt8(ascii: "`"):
      return true
    default: return isSpace(byte)
    }
  }

  /// The end of an unquoted value: a space, the next query parameter, or a quote around it.
  private static func endsValue(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: "\""), UInt8(ascii: "'"): return true
    default: return isSpace(byte)
    }
  }
}
