/// Text from outside (firmware, cameras, push services) made safe to store and to log:
/// control characters (U+0000 to U+001F and U+007F) removed, which PostgreSQL's `text`
/// and `jsonb` would refuse (NUL) or a reader would misread, and cut to a length.
///
/// One function for every stage, so that what the event log records of hostile input is
/// cleaned the same way wherever it came from.
public enum CleanText {
  /// `text` without control characters, at most `maximumCharacters` long; with `marksCut`,
  /// a text that was longer ends in `…` (within the limit).
  ///
  /// Counted in Unicode scalars, as PostgreSQL counts characters, not in `Character`s: one
  /// `Character` can hold any number of combining marks, so a limit in those bounds nothing.
  public static func clean(
    _ text: some StringProtocol, maximumCharacters: Int, marksCut: Bool = false
  ) -> String {
    var kept = String.UnicodeScalarView()
    var count = 0
    for scalar in text.unicodeScalars where !isControl(scalar) {
      if count == maximumCharacters {
        if marksCut, count > 0 {
          kept.removeLast()
          kept.append("…")
        }
        break
      }
      kept.append(scalar)
      count += 1
    }
    return String(kept)
  }

  /// Bytes that may not be UTF-8 at all (a camera's error reply): each invalid sequence
  /// becomes U+FFFD, then as `clean(_:maximumCharacters:marksCut:)`.
  public static func clean(
    bytes: some Collection<UInt8>, maximumCharacters: Int, marksCut: Bool = false
  ) -> String {
    clean(
      String(decoding: Array(bytes), as: UTF8.self), maximumCharacters: maximumCharacters,
      marksCut: marksCut)
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || scalar.value == 0x7F
  }
}
