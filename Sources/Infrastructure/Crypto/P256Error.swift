/// What was wrong with a P-256 key handed to `P256KeyPair`, `ES256SigningKey` or
/// `ES256VerifyingKey`, or which OpenSSL step failed with it.
public enum P256Error: Error, Equatable, CustomStringConvertible {
  /// A public key must be the 65-byte uncompressed point 0x04 ‖ x ‖ y.
  case publicKeyNotUncompressedPoint(length: Int)
  /// The bytes have the right shape but name no point of P-256 (or the point at infinity).
  case publicKeyNotOnCurve
  /// A raw private key must be a 32-byte scalar between 1 and the group order.
  case invalidPrivateKey
  /// The PEM text holds no private key, or one that is not P-256.
  case notAP256PEMKey
  case keyGenerationFailed
  case keyAgreementFailed

  public var description: String {
    switch self {
    case .publicKeyNotUncompressedPoint(let length):
      return "a P-256 public key must be a 65-byte uncompressed point, not \(length) bytes"
    case .publicKeyNotOnCurve: return "the P-256 public key is not a point on the curve"
    case .invalidPrivateKey: return "the P-256 private key is not a scalar in [1, n-1]"
    case .notAP256PEMKey: return "the PEM text is not a P-256 private key"
    case .keyGenerationFailed: return "OpenSSL could not generate a P-256 key"
    case .keyAgreementFailed: return "P-256 key agreement (ECDH) failed"
    }
  }
}
