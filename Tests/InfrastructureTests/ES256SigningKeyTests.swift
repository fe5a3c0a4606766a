import COpenSSL
import Foundation
import TestSupport
import Testing

@testable import Infrastructure

@Suite struct ES256SigningKeyTests {
  @Test func aPEMKeySignsWhatItsPublicKeyVerifies() throws {
    let pem = try Self.pem(
      "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt")
    let key = try #require(ES256SigningKey(pem: pem))
    #expect(key.publicKeyUncompressed.count == 65 && key.publicKeyUncompressed[0] == 0x04)
    let verifier = try ES256VerifyingKey(uncompressed: key.publicKeyUncompressed)
    let message = Array("header.claims".utf8)
    let signature = try #require(key.sign(message))
    #expect(signature.count == 64)
    #expect(verifier.isValidSignature(signature, of: message))
    #expect(!verifier.isValidSignature(signature, of: Array("header.claimz".utf8)))
    #expect(key.sign(message) != signature, "ECDSA signatures are randomized")
  }

  @Test func aPEMWithACompressedPublicKeyStillGivesTheUncompressedPoint() throws {
    let pem = try Self.pem(
      "openssl ecparam -name prime256v1 -genkey -noout | openssl ec -conv_form compressed")
    let key = try #require(ES256SigningKey(pem: pem))
    #expect(key.publicKeyUncompressed.count == 65 && key.publicKeyUncompressed[0] == 0x04)
  }

  @Test func notAP256KeyIsRefused() throws {
    #expect(ES256SigningKey(pem: Array("not a key".utf8)) == nil)
    #expect(
      ES256SigningKey(pem: try Self.pem("openssl ecparam -name secp384r1 -genkey -noout")) == nil)
    #expect(throws: P256Error.notAP256PEMKey) {
      try P256KeyPair(pem: Self.pem("openssl genpkey -algorithm ed25519"))
    }
  }

  @Test func rawAndDERSignaturesConvertBothWays() throws {
    let raw: [UInt8] =
      [0x80] + [UInt8](repeating: 1, count: 31) + [0] + [UInt8](repeating: 2, count: 31)
    let der = try #require(ES256SigningKey.derSignature(fromRaw: raw))
    #expect(ES256SigningKey.rawSignature(fromDER: der) == raw)
    #expect(ES256SigningKey.derSignature(fromRaw: Array(raw.prefix(63))) == nil)
    #expect(ES256SigningKey.rawSignature(fromDER: [0x30, 0x00]) == nil)
  }

  @Test func theStaticParameterNamesSpellOpenSSLs() {
    #expect(ParameterName.group.description == OSSL_PKEY_PARAM_GROUP_NAME)
    #expect(ParameterName.publicKey.description == OSSL_PKEY_PARAM_PUB_KEY)
    #expect(ParameterName.privateKey.description == OSSL_PKEY_PARAM_PRIV_KEY)
    #expect(ParameterName.prime256v1.description == SN_X9_62_prime256v1)
  }

  @Test func theVerifyingKeyRefusesAPointOffTheCurve() throws {
    var point = try P256KeyPair().publicKeyUncompressed
    point[40] ^= 0x01
    #expect(throws: P256Error.publicKeyNotOnCurve) { try ES256VerifyingKey(uncompressed: point) }
  }

  /// A key made by the `openssl` command line, as PEM.
  private static func pem(_ command: String) throws -> [UInt8] {
    Array(try runShell(command + " 2>/dev/null").utf8)
  }
}
