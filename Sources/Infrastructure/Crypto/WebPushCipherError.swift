/// Why a Web Push message could not be encrypted or decrypted, named so a log line or a
/// push-service double's 400 response says which part of the message or key was wrong.
public enum WebPushCipherError: Error, Equatable, CustomStringConvertible {
  /// The body is shorter than the RFC 8188 header its key id length announces plus one tag.
  case bodyTooShort(length: Int)
  /// The header is malformed: a record size below 18, a key id that is not a 65-byte point.
  case badHeader(String)
  /// The user agent's or the sender's public key is unusable.
  case badKey(P256Error)
  /// The auth secret must be 16 bytes (RFC 8291 section 3.2).
  case badAuthSecret(length: Int)
  /// The message does not fit one record of the given size (this coding writes one record).
  case plaintextTooLarge(length: Int, limit: Int)
  /// The body holds more than one record, which Web Push never sends (RFC 8291 section 4).
  case multipleRecords
  /// The tag does not authenticate the ciphertext: a wrong key or auth secret, or a changed
  /// byte.
  case authenticationFailed
  /// The decrypted record does not end in the last-record delimiter 0x02 and zeros.
  case badPadding
  /// OpenSSL failed at a step that does not fail for valid input (random bytes, HKDF).
  case cryptoFailure(String)

  public var description: String {
    switch self {
    case .bodyTooShort(let length):
      return "the Web Push body is too short for an aes128gcm header and record (\(length) bytes)"
    case .badHeader(let reason): return "the aes128gcm header is malformed: \(reason)"
    case .badKey(let error): return "unusable Web Push key: \(error)"
    case .badAuthSecret(let length):
      return "the Web Push auth secret must be 16 bytes, not \(length)"
    case .plaintextTooLarge(let length, let limit):
      return "the Web Push message of \(length) bytes exceeds the \(limit) bytes one record holds"
    case .multipleRecords: return "the aes128gcm body holds more than the one record Web Push sends"
    case .authenticationFailed:
      return "the Web Push record does not authenticate (wrong key or auth secret, or altered)"
    case .badPadding: return "the Web Push record lacks the last-record padding delimiter"
    case .cryptoFailure(let step): return "OpenSSL failed: \(step)"
    }
  }
}
