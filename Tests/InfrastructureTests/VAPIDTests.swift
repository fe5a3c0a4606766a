import COpenSSL
import Foundation
import Testing

@testable import Infrastructure

@Suite struct VAPIDTests {
  static let now = Date(timeIntervalSince1970: 1_700_000_000)
  static let endpoint = "https://Push.Example.net:8443/wpush/v2/gAAAAABk?token=abc&x=1#frag"

  @Test(arguments: [
    (endpoint, "https://push.example.net:8443"),
    ("https://fcm.googleapis.com/fcm/send/dZ2x:APA91b", "https://fcm.googleapis.com"),
    (
      "https://updates.push.services.mozilla.com:443/wpush/v2/x",
      "https://updates.push.services.mozilla.com"
    ),
    ("http://127.0.0.1:9123/push/abc?q", "http://127.0.0.1:9123"),
    ("http://localhost:80/push", "http://localhost"),
  ])
  func theAudienceIsTheEndpointsOrigin(endpoint: String, origin: String) {
    #expect(VAPIDAuthorization.audience(ofEndpoint: endpoint) == origin)
  }

  @Test(arguments: [
    "", "push.example.net/x", "ftp://push.example.net/x", "https:///x", "/relative",
  ])
  func anEndpointWithoutAnOriginIsRefused(endpoint: String) throws {
    let vapid = try VAPIDAuthorization(
      key: ES256SigningKey.generate(), subject: "mailto:ops@example.com")
    #expect(throws: VAPIDError.badEndpoint(endpoint)) {
      try vapid.headerValue(endpoint: endpoint, now: Self.now)
    }
  }

  @Test func theHeaderCarriesAJWTForTheOriginAndTheUncompressedKey() throws {
    let key = try ES256SigningKey.generate()
    let vapid = try VAPIDAuthorization(key: key, subject: "mailto:ops@example.com")
    let header = try vapid.headerValue(endpoint: Self.endpoint, now: Self.now)
    let token = try Token(header: header)
    #expect(token.k == key.publicKeyUncompressed)
    #expect(token.k.count == 65 && token.k[0] == 0x04)
    #expect(JSON.value(from: token.header) == ["typ": "JWT", "alg": "ES256"])
    let claims = try JSONDecoder().decode(VAPIDClaims.self, from: Data(token.claims))
    #expect(claims.aud == "https://push.example.net:8443")
    #expect(claims.sub == "mailto:ops@example.com")
    #expect(claims.exp == Int(Self.now.timeIntervalSince1970) + 12 * 3600)
    #expect(claims.exp > Int(Self.now.timeIntervalSince1970))
    #expect(claims.exp <= Int(Self.now.timeIntervalSince1970) + 24 * 3600)
  }

  @Test func theSignatureVerifiesWithOpenSSLAndTheKKey() throws {
    let key = try ES256SigningKey.generate()
    let header = try VAPIDAuthorization(key: key, subject: "https://example.com/contact")
      .headerValue(endpoint: Self.endpoint, now: Self.now)
    let token = try Token(header: header)
    #expect(token.signature.count == 64)
    #expect(try Self.openSSLVerifies(token.signingInput, token.signature, key: token.k))
    var tampered = token.signingInput
    tampered[tampered.count - 2] ^= 0x01
    #expect(try !Self.openSSLVerifies(tampered, token.signature, key: token.k))
    let other = try P256KeyPair().publicKeyUncompressed
    #expect(try !Self.openSSLVerifies(token.signingInput, token.signature, key: other))
  }

  @Test func theVerifierReturnsTheClaimsAndKey() throws {
    let key = try ES256SigningKey.generate()
    let header = try VAPIDAuthorization(key: key, subject: "mailto:ops@example.com")
      .headerValue(endpoint: Self.endpoint, now: Self.now)
    let verified = try VAPIDVerifier.verify(
      headerValue: header, now: Self.now.addingTimeInterval(60))
    #expect(verified.publicKey == key.publicKeyUncompressed)
    #expect(
      verified.claims
        == VAPIDClaims(
          aud: "https://push.example.net:8443", exp: 1_700_000_000 + 43_200,
          sub: "mailto:ops@example.com"))
  }

  @Test func theVerifierRefusesWhatAPushServiceRefuses() throws {
    let key = try ES256SigningKey.generate()
    let header = try VAPIDAuthorization(key: key, subject: "mailto:ops@example.com")
      .headerValue(endpoint: Self.endpoint, now: Self.now)
    let exp = 1_700_000_000 + 43_200
    #expect(throws: VAPIDError.expired(exp: exp)) {
      try VAPIDVerifier.verify(headerValue: header, now: Self.now.addingTimeInterval(43_200))
    }
    #expect(throws: VAPIDError.expiresTooLate(exp: exp)) {
      try VAPIDVerifier.verify(headerValue: header, now: Self.now.addingTimeInterval(-13 * 3600))
    }
    let otherKey = Base64URL.encode(try P256KeyPair().publicKeyUncompressed)
    let swapped = header[..<header.range(of: ", k=")!.lowerBound] + ", k=" + otherKey
    #expect(throws: VAPIDError.badSignature) {
      try VAPIDVerifier.verify(headerValue: String(swapped), now: Self.now)
    }
    // Claims for another origin under the original signature.
    let token = try Token(header: header)
    let forged = VAPIDClaims(aud: "https://evil.example", exp: exp, sub: "mailto:ops@example.com")
    let parts = header.dropFirst("vapid t=".count).split(separator: ".")
    let forgedHeader =
      "vapid t=\(parts[0]).\(Base64URL.encode(WireCoding.encode(forged))).\(Base64URL.encode(token.signature))"
      + ", k=\(Base64URL.encode(token.k))"
    #expect(throws: VAPIDError.badSignature) {
      try VAPIDVerifier.verify(headerValue: forgedHeader, now: Self.now)
    }
    #expect(throws: VAPIDError.malformedHeader("the scheme is not vapid")) {
      try VAPIDVerifier.verify(headerValue: "Bearer x", now: Self.now)
    }
    #expect(throws: VAPIDError.malformedHeader("t or k is missing")) {
      try VAPIDVerifier.verify(headerValue: "vapid t=a.b.c", now: Self.now)
    }
  }

  @Test func theHeaderNeverContainsThePrivateKey() throws {
    let scalar: [UInt8] = (1...32).map { UInt8($0 * 7) }
    let key = ES256SigningKey(keyPair: try P256KeyPair(privateKey: scalar))
    let header = try VAPIDAuthorization(key: key, subject: "mailto:ops@example.com")
      .headerValue(endpoint: Self.endpoint, now: Self.now)
    #expect(!header.contains(Base64URL.encode(scalar)))
    #expect(!header.contains(Hex.encode(scalar)))
    let token = try Token(header: header)
    for part in [token.header, token.claims, token.signature, token.k] {
      #expect(!Self.contains(part, scalar))
    }
  }

  @Test(arguments: ["", "ops@example.com", "mailto:", "http://example.com", "https://"])
  func aSubjectThatIsNoMailtoOrHTTPSURIIsRefused(subject: String) throws {
    let key = try ES256SigningKey.generate()
    #expect(throws: VAPIDError.badSubject(subject)) {
      try VAPIDAuthorization(key: key, subject: subject)
    }
  }

  /// The parts of `vapid t=<JWT>, k=<key>`, decoded.
  private struct Token {
    let header: [UInt8]
    let claims: [UInt8]
    let signature: [UInt8]
    let signingInput: [UInt8]
    let k: [UInt8]

    init(header value: String) throws {
      #expect(value.hasPrefix("vapid t="))
      let fields = value.dropFirst("vapid ".count).split(separator: ", ")
      try #require(fields.count == 2)
      #expect(fields[0].hasPrefix("t=") && fields[1].hasPrefix("k="))
      let parts = fields[0].dropFirst(2).split(separator: ".", omittingEmptySubsequences: false)
      try #require(parts.count == 3)
      header = try #require(Base64URL.decode(String(parts[0])))
      claims = try #require(Base64URL.decode(String(parts[1])))
      signature = try #require(Base64URL.decode(String(parts[2])))
      signingInput = Array("\(parts[0]).\(parts[1])".utf8)
      k = try #require(Base64URL.decode(String(fields[1].dropFirst(2))))
    }
  }

  private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains {
      Array(haystack[$0..<($0 + needle.count)]) == needle
    }
  }

  /// ES256 verification straight through OpenSSL, sharing no code with `Infrastructure`:
  /// the key as a DER SubjectPublicKeyInfo (the fixed P-256 prefix and the point), the
  /// signature as DER.
  private static func openSSLVerifies(
    _ message: [UInt8], _ rawSignature: [UInt8], key point: [UInt8]
  ) throws -> Bool {
    let spki: [UInt8] =
      [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08,
        0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
      ] + point
    let key = try #require(
      spki.withUnsafeBufferPointer { buffer -> OpaquePointer? in
        var cursor = buffer.baseAddress
        return d2i_PUBKEY(nil, &cursor, buffer.count)
      })
    defer { EVP_PKEY_free(key) }
    let context = try #require(EVP_MD_CTX_new())
    defer { EVP_MD_CTX_free(context) }
    let der = derSignature(rawSignature)
    let verified =
      EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1
      && EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    ERR_clear_error()
    return verified
  }

  /// r ‖ s to an ASN.1 SEQUENCE of two INTEGERs.
  private static func derSignature(_ raw: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
      var value = Array(bytes.drop { $0 == 0 })
      if value.isEmpty { value = [0] }
      if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
      return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw[0..<32]) + integer(raw[32..<64])
    return [0x30, UInt8(body.count)] + body
  }
}
