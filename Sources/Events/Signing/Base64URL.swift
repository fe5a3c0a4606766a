import Foundation

/// base64url without padding (RFC 4648 section 5), as in signed URLs and JWTs.
public enum Base64URL {
  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    Data(bytes).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  /// Nil for anything that is not canonical unpadded base64url.
  public static func decode(_ text: String) -> [UInt8]? {
    guard text.utf8.allSatisfy({ isAlphabet($0) }), text.utf8.count % 4 != 1 else { return nil }
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
    guard let data = Data(base64Encoded: standard) else { return nil }
    let bytes = [UInt8](data)
    // Reject non-canonical spellings (stray low bits), so one signature has one text.
    return encode(bytes) == text ? bytes : nil
  }

  static func isAlphabet(_ c: UInt8) -> Bool {
    (65...90).contains(c) || (97...122).contains(c) || (48...57).contains(c) || c == 45 || c == 95
  }
}
