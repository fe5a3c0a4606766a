/// Text from outside (firmware, cameras, push services) made safe to store and to log:
/// control characters (U+0000 to U+001F and U+007F) removed, which PostgreSQL's `text`
/// and `jsonb` would refuse (NUL) or a reader would misread, and cut to a length.
///
/// One function for every stage, so that what the event log records of hostile input is
/// cleaned the same way wherever it came from.
public enum CleanText {
  /// `text` without control characters, at most `maximumCharacters` characters long.
  public static func clean(_ text: some StringProtocol, maximumCharacters: Int) -> String {
    var scalars = String.UnicodeScalarView()
    for scalar in text.unicodeScalars where !isControl(scalar) {
      scalars.append(scalar)
    }
    let cleaned = String(scalars)
    guard cleaned.count > maximumCharacters else { return cleaned }
    return String(cleaned.prefix(maximumCharacters))
  }

  /// Bytes that may not be UTF-8 at all (a camera's error reply): invalid sequences become
  /// U+FFFD, then as `clean(_:maximumCharacters:)`.
  public static func clean(bytes: some Collection<UInt8>, maximumCharacters: Int) -> String {
    // Decoding past what can be kept is wasted work: each character is at most 4 bytes,
    // plus room for the control characters that go.
    let head = bytes.prefix(maximumCharacters * 8)
    return clean(String(decoding: Array(head), as: UTF8.self), maximumCharacters: maximumCharacters)
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || scalar.value == 0x7F
  }
}
