/// Shortens an alert's title and body to a number of bytes of JSON text, each ending in
/// `…` when cut (docs/interfaces.md#apns).
///
/// Bytes are counted as `WireCoding` writes them (`PushBody`): UTF-8, with a quote,
/// backslash or control character taking its escape's length. Texts are cut between
/// characters (grapheme clusters), so neither an emoji nor an escape is split.
enum AlertFitting {
  /// What a cut text ends with: three bytes of UTF-8, no escape.
  static let ellipsis = "…"

  /// The title and body, cut so that their encoded text takes at most `bytes` together.
  /// A text that fits in half the room stays whole and leaves the rest to the other; the
  /// title (which holds the mower's name) and the body share the room when both are long.
  static func fit(title: String, body: String, bytes: Int) -> (title: String, body: String) {
    let titleBytes = encodedLength(title, limit: bytes)
    let bodyBytes = encodedLength(body, limit: bytes)
    if titleBytes + bodyBytes <= bytes { return (title, body) }
    let half = bytes / 2
    if bodyBytes <= half { return (cut(title, to: bytes - bodyBytes), body) }
    if titleBytes <= half { return (title, cut(body, to: bytes - titleBytes)) }
    return (cut(title, to: half), cut(body, to: bytes - half))
  }

  /// The text, or its longest start that fits `bytes` with `…` after it; empty when not
  /// even the ellipsis fits.
  static func cut(_ text: String, to bytes: Int) -> String {
    if encodedLength(text, limit: bytes) <= bytes { return text }
    let room = bytes - ellipsis.utf8.count
    guard room >= 0 else { return "" }
    var used = 0
    var end = text.startIndex
    for character in text {
      let length = encodedLength(character)
      guard used + length <= room else { break }
      used += length
      end = text.index(after: end)
    }
    // "Robbie …" reads worse than "Robbie…".
    var kept = text[..<end]
    while kept.last?.isWhitespace == true { kept.removeLast() }
    return String(kept) + ellipsis
  }

  /// The bytes the text takes inside a JSON string, counted up to just past `limit`
  /// (a 900 KB reason is not walked to its end).
  static func encodedLength(_ text: some StringProtocol, limit: Int = .max) -> Int {
    var total = 0
    for scalar in text.unicodeScalars {
      total += encodedLength(scalar)
      if total > limit { break }
    }
    return total
  }

  private static func encodedLength(_ character: Character) -> Int {
    character.unicodeScalars.reduce(0) { $0 + encodedLength($1) }
  }

  /// As `WireCoding`'s `JSONEncoder` escapes: two bytes for `"`, `\`, backspace, form feed,
  /// newline, return and tab (`\b`, `\f`, ...), six (`\u00xx`) for the other control
  /// characters, UTF-8 for the rest (`/` too: it writes `.withoutEscapingSlashes`).
  /// `AlertFittingTests` holds this to the encoder, character by character.
  private static func encodedLength(_ scalar: Unicode.Scalar) -> Int {
    switch scalar {
    case "\"", "\\", "\u{8}", "\u{C}", "\n", "\r", "\t": return 2
    case _ where scalar.value < 0x20: return 6
    default: return UTF8.width(scalar)
    }
  }
}
