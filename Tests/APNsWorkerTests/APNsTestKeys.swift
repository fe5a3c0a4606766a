import Foundation
import TestSupport

/// A throwaway APNs signing key (PKCS#8 P-256, as Apple's .p8) and its public key, made with
/// the `openssl` command line.
struct APNsTestKeys {
  let directory: URL
  var privateKey: String { directory.appendingPathComponent("apns-key.p8").path }
  var publicKey: String { directory.appendingPathComponent("apns-key.pub.pem").path }

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "apns-keys-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try runShell(
      "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out '\(privateKey)'"
        + " && openssl ec -in '\(privateKey)' -pubout -out '\(publicKey)' 2>/dev/null")
  }

  /// Verifies an ES256 JWS signature (raw r‖s) over `message` with the public key.
  func verify(message: [UInt8], rawSignature: [UInt8]) throws -> Bool {
    let messageFile = directory.appendingPathComponent("message-\(UUID().uuidString.prefix(6))")
    let signatureFile = directory.appendingPathComponent("signature-\(UUID().uuidString.prefix(6))")
    try Data(message).write(to: messageFile)
    try Data(Self.der(rawSignature)).write(to: signatureFile)
    return
      (try? runShell(
        "openssl dgst -sha256 -verify '\(publicKey)' -signature '\(signatureFile.path)' '\(messageFile.path)'"
      ))
      != nil
  }

  /// r‖s to an ASN.1 DER SEQUENCE of two INTEGERs, as `openssl dgst` wants.
  static func der(_ raw: [UInt8]) -> [UInt8] {
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
