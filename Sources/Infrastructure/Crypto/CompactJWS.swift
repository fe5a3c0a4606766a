/// A JWS in compact serialization (RFC 7515 section 7.1): `base64url(header) ‖ "." ‖
/// base64url(claims) ‖ "." ‖ base64url(signature)`, split into what a verifier needs.
/// Makes no judgement on the algorithm or the claims: its callers know which they expect.
public struct CompactJWS: Sendable, Equatable {
  public let header: [UInt8]
  public let claims: [UInt8]
  /// The bytes the signature covers: the first two parts as sent, with their dot.
  public let signingInput: [UInt8]
  public let signature: [UInt8]

  /// Nil unless `token` is three parts of canonical unpadded base64url.
  public init?(_ token: String) {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let header = Base64URL.decode(String(parts[0])),
      let claims = Base64URL.decode(String(parts[1])),
      let signature = Base64URL.decode(String(parts[2]))
    else { return nil }
    self.header = header
    self.claims = claims
    self.signingInput = Array("\(parts[0]).\(parts[1])".utf8)
    self.signature = signature
  }

  /// The compact form of `header` and `claims` (encoded as `WireCoding` encodes them),
  /// signed by `sign`.
  public static func serialize<Failure: Error>(
    header: some Encodable, claims: some Encodable,
    sign: ([UInt8]) throws(Failure) -> [UInt8]
  ) throws(Failure) -> String {
    let signingInput =
      Base64URL.encode(WireCoding.encode(header)) + "."
      + Base64URL.encode(WireCoding.encode(claims))
    return signingInput + "." + Base64URL.encode(try sign(Array(signingInput.utf8)))
  }
}
