import Events
import Infrastructure

/// The text a failed capture records of what went wrong (`detail` in `photo.failed`),
/// made safe to store whatever a camera sent (docs/interfaces.md#camera-request-and-replies).
///
/// Why: the text goes into a `jsonb` column, which refuses `\u0000`, and a camera's error
/// text has no length limit. A reply PostgreSQL refuses would fail its commit on every retry.
enum FailureDetail {
  /// The most characters (Unicode scalars, as PostgreSQL counts them) a detail keeps.
  static let maximumLength = 200

  /// `text` without control characters, cut to `maximumLength` with `…` at the end when it
  /// was longer (`CleanText`, the one cleaning of outside text).
  static func cleaned(_ text: some StringProtocol) -> String {
    CleanText.clean(text, maximumCharacters: maximumLength, marksCut: true)
  }

  /// The bytes read as UTF-8, each invalid sequence replaced by U+FFFD, then cleaned.
  static func cleaned(bytes: some Collection<UInt8>) -> String {
    CleanText.clean(bytes: bytes, maximumCharacters: maximumLength, marksCut: true)
  }
}
