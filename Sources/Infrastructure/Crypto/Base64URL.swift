import FoundationEssentials

/// base64url without padding (RFC 4648 section 5), as in signed URLs and JWTs.
public enum Base64URL {
  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    Data(bytes).base64EncodedString()
      .replacing("+", with: "-").replacing("/", with: "_")
      .replacing("=", with: "")
  }

  /// Nil for anything that is not canonical unpadded base64url. Byte-level, because every
  /// forged push-image request pays for it before being rejected.
  public static func decode(_ text: String) -> [UInt8]? {
    guard text.utf8.count % 4 != 1 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count * 3 / 4)
    var accumulator: UInt32 = 0
    var bits = 0
    for c in text.utf8 {
      let value: UInt32
      switch c {
      case 65...90: value = UInt32(c - 65)
      case 97...122: value = UInt32(c - 97 + 26)
      case 48...57: value = UInt32(c - 48 + 52)
      case 45: value = 62
      case 95: value = 63
      default: return nil
      }
      accumulator = accumulator << 6 | value
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
        accumulator &= (1 << UInt32(bits)) - 1
      }
    }
    // Stray low bits would be a second spelling of the same bytes.
    return accumulator == 0 ? out : nil
  }
}
