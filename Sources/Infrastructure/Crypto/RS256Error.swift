/// What was wrong with an RSA key handed to `RS256SigningKey` or `RS256VerifyingKey`, or
/// which OpenSSL step failed with it. A service account's key is the operator's file, so
/// each case says what to fix.
public enum RS256Error: Error, Equatable, CustomStringConvertible {
  /// The text holds no PEM key (or certificate) OpenSSL can read, or an encrypted one.
  case unreadablePEM
  /// The key is not RSA (an EC or Ed25519 key cannot sign RS256).
  case notRSA
  /// RFC 7518 section 3.3: RS256 keys must have at least 2048 bits.
  case keyTooSmall(bits: Int)
  case signingFailed

  public var description: String {
    switch self {
    case .unreadablePEM:
      return "the PEM text holds no readable, unencrypted RSA key or certificate"
    case .notRSA: return "the key is not an RSA key, so it cannot sign or verify RS256"
    case .keyTooSmall(let bits):
      return "the RSA key has \(bits) bits; RS256 needs at least 2048 (RFC 7518)"
    case .signingFailed: return "OpenSSL failed to make an RS256 signature"
    }
  }
}
