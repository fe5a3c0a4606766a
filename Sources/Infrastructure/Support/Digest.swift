import COpenSSL
import FoundationEssentials

/// SHA-256 through OpenSSL: payload fingerprints in events, session token hashes, and
/// name-based UUIDs.
public enum Digest {
  public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
    let input = Array(bytes)
    input.withUnsafeBufferPointer { buffer in
      _ = SHA256(buffer.baseAddress, buffer.count, &out)
    }
    return out
  }

  public static func sha256Hex(_ bytes: some Collection<UInt8>) -> String {
    Hex.encode(sha256(bytes))
  }

  /// A UUID derived from `name` (SHA-256, version 5 layout): the same name, the same id.
  public static func uuid(from name: String) -> UUID {
    var bytes = Array(sha256(Array(name.utf8)).prefix(16))
    bytes[6] = (bytes[6] & 0x0f) | 0x50
    bytes[8] = (bytes[8] & 0x3f) | 0x80
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
        bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }
}
