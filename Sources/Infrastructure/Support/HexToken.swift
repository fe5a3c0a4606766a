/// The one check of a 64-hex-digit token: an APNs device token, and a session token from
/// `mowdeck session create` (32 random bytes). Either case of the digits is accepted;
/// callers store and compare the lower-case form.
public enum HexToken {
  public static let length = 64

  public static func isWellFormed(_ text: some StringProtocol) -> Bool {
    text.utf8.count == length && text.utf8.allSatisfy { Hex.isDigit($0) }
  }
}
