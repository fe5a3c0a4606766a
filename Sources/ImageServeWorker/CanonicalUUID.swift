/// The one spelling of a UUID this server accepts in a URL: 36 characters, lowercase hex
/// with dashes at 8, 13, 18 and 23, as the rest of the system writes them.
///
/// Foundation's `UUID(uuidString:)` alone is not enough: on Linux it also takes spellings
/// such as `0000-000-0000-...` (its parser reads `-0` as a hex number), which would give
/// one notification two URLs. Plain Swift, so the fuzz build compiles it as it is.
enum CanonicalUUID {
  static func isCanonical(_ text: Substring) -> Bool {
    guard text.utf8.count == 36 else { return false }
    for (offset, c) in text.utf8.enumerated() {
      if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
        guard c == UInt8(ascii: "-") else { return false }
      } else {
        guard (48...57).contains(c) || (97...102).contains(c) else { return false }
      }
    }
    return true
  }
}
