/// The one place secrets are taken out of text bound for a log line or an error
/// (docs/interfaces.md#event-log). The logger applies it to every message and field, so a URL
/// with credentials, a libpq connection string or an APNs reply cannot reach the logs
/// whatever the call site passes.
///
/// What goes, and what it becomes:
/// - the userinfo of any URL (`nats://user:pw@host`, `nats://token@host`) -> `***`;
/// - the value of a `…password=`, `…secret=` or `…token=` key (libpq's key/value form,
///   query strings) and of a signed URL's `s=` parameter -> `***`;
/// - the credentials after `Bearer` and `vapid` -> `***`;
/// - the body of a PEM private key block -> `***`;
/// - JWTs, and runs of 32 or more base64url or hex characters with letters and digits
///   (device tokens, keys, session tokens, OAuth access tokens) -> their first 8
///   characters and `…`, the same prefix events show of a device token, so two can still
///   be told apart; an FCM registration token (`<instance id>:APA91b…`) likewise, as one.
///
/// A hand-written scan over the UTF-8 bytes, once, rather than a set of regular
/// expressions: it runs on every log line, and a line without secrets costs one pass and
/// no allocation. Every pattern starts at a run of token characters, so the scan only
/// stops to look at those.
public enum Redaction {
  /// What a removed secret reads as.
  public static let mask = "***"

  /// Text with every secret the rules above know replaced; the same text when none is found.
  public static func redact(_ text: String) -> String {
    let redacted =
      text.utf8.withContiguousStorageIfAvailable { RedactionScanner(bytes: $0).redacted() }
      ?? Array(text.utf8).withUnsafeBufferPointer { RedactionScanner(bytes: $0).redacted() }
    guard let redacted else { return text }
    return String(decoding: redacted, as: UTF8.self)
  }
}
