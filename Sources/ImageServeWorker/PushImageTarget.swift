/// The three parts of a push-image request target, checked for shape only (the signature
/// is checked by `ImageURLSigner`). Plain Swift with no imports, so that the fuzz build
/// (fuzz/run.sh) compiles it as it is.
///
/// Accepted: `/api/v1/notifications/push-images/<id>?e=<expiry>&s=<signature>` (the two
/// parameters in either order), each exactly once, nothing else; the id spelled the one way
/// the system writes it (CanonicalUUID). Refused: any other
/// parameter, a repeated or empty one, an expiry with a leading zero, percent-encoding or
/// `+` anywhere, a byte outside
/// the few the three parts can hold, and anything longer than a genuine URL can be.
struct PushImageTarget: Equatable {
  static let pathPrefix = "/api/v1/notifications/push-images/"
  /// 34 bytes of path prefix, 36 of id, `?e=`, 12 digits, `&s=`, 43 of signature, with room.
  static let maxLength = 160

  let notificationID: Substring
  let expiry: Substring
  let signature: Substring

  init?(target: String) {
    // Byte offsets over the UTF-8 view: every accepted byte is ASCII, and Character-based
    // String slicing costs more than the HMAC that follows.
    let bytes = target.utf8
    guard bytes.count <= Self.maxLength, bytes.starts(with: Self.pathPrefix.utf8),
      bytes.allSatisfy(Self.isAllowed)
    else { return nil }
    let idStart = bytes.index(bytes.startIndex, offsetBy: Self.pathPrefix.utf8.count)
    guard let mark = bytes[idStart...].firstIndex(of: UInt8(ascii: "?")),
      CanonicalUUID.isCanonical(target[idStart..<mark])
    else { return nil }
    var expiry: Substring?
    var signature: Substring?
    var cursor = bytes.index(after: mark)
    while true {
      let end = bytes[cursor...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
      // `e=...` or `s=...`: a one-letter name, `=`, a value without `=`.
      guard bytes.distance(from: cursor, to: end) >= 3,
        bytes[bytes.index(after: cursor)] == UInt8(ascii: "=")
      else { return nil }
      let valueStart = bytes.index(cursor, offsetBy: 2)
      guard !bytes[valueStart..<end].contains(UInt8(ascii: "=")) else { return nil }
      let value = target[valueStart..<end]
      switch bytes[cursor] {
      case UInt8(ascii: "e"):
        guard expiry == nil else { return nil }
        expiry = value
      case UInt8(ascii: "s"):
        guard signature == nil else { return nil }
        signature = value
      default:
        return nil
      }
      guard end < bytes.endIndex else { break }
      cursor = bytes.index(after: end)
    }
    // One expiry, one spelling: `0600` would sign the same instant as `600`.
    guard let expiry, let signature, expiry.utf8.first != UInt8(ascii: "0") else { return nil }
    self.notificationID = target[idStart..<mark]
    self.expiry = expiry
    self.signature = signature
  }

  /// Letters, digits, and `/ - _ ? = &`: what the path, an id, a decimal expiry and a
  /// base64url signature are made of. `%`, `+`, `.`, spaces and bytes above 127 are not.
  private static func isAllowed(_ c: UInt8) -> Bool {
    switch c {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    case UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "?"),
      UInt8(ascii: "="), UInt8(ascii: "&"):
      return true
    default:
      return false
    }
  }
}
