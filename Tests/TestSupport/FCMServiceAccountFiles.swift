import Foundation
import Infrastructure

/// An RSA key pair as PEM text: PKCS#8 private key, SubjectPublicKeyInfo public key.
public struct RSAKeyPairPEM: Sendable {
  public let privateKeyPEM: String
  public let publicKeyPEM: String
}

/// One line of the FCM sandbox's record file (see `FCMSandbox --help`).
public struct FCMRecordLine: Codable, Equatable, Sendable {
  public var time: Date
  public var route: String
  /// The HTTP/2 connection (numbered from 1 in accept order) and stream of the request.
  public var connection: Int?
  public var stream: Int?
  public var status: Int
  public var error: String?
  public var detail: String?
  public var accessToken: String?
  public var expiresIn: Int?
  public var iss: String?
  public var scope: String?
  public var aud: String?
  public var project: String?
  public var registrationToken: String?
  public var message: JSONValue?
  public var name: String?

  enum CodingKeys: String, CodingKey {
    case time, route, connection, stream, status, error, detail
    case accessToken = "access_token"
    case expiresIn = "expires_in"
    case iss, scope, aud, project
    case registrationToken = "registration_token"
    case message, name
  }
}

extension FCMSandboxHarness {
  /// The key of the tests' service account, made once per test process: an RSA key takes
  /// the `openssl` command line a while to make.
  public static func serviceAccountKey() throws -> RSAKeyPairPEM {
    try testKey.get()
  }

  private static let testKey = Result { try makeRSAKey() }

  /// A fresh RSA key from the `openssl` command line (an independent maker of PKCS#8).
  public static func makeRSAKey(bits: Int = 2048) throws -> RSAKeyPairPEM {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("rsa-\(UUID().uuidString.prefix(8)).pem")
    defer { try? FileManager.default.removeItem(at: file) }
    try runShell(
      "umask 077 && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:\(bits) "
        + "-out '\(file.path)' 2>/dev/null")
    return RSAKeyPairPEM(
      privateKeyPEM: try String(contentsOf: file, encoding: .utf8),
      publicKeyPEM: try runShell("openssl pkey -in '\(file.path)' -pubout"))
  }

  /// A service-account file's JSON as the Firebase console writes it (the fields a
  /// sender does not read included), with any field replaced or left out by the caller.
  public static func serviceAccountJSON(
    privateKeyPEM: String, tokenURI: String, clientEmail: String = clientEmail,
    projectID: String = projectID, omitting: Set<String> = []
  ) -> [UInt8] {
    var fields: [String: String] = [
      "type": "service_account", "project_id": projectID,
      "private_key_id": "0123456789abcdef0123456789abcdef01234567",
      "private_key": privateKeyPEM, "client_email": clientEmail,
      "client_id": "123456789012345678901",
      "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURI,
      "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
      "client_x509_cert_url":
        "https://www.googleapis.com/robot/v1/metadata/x509/fcm-sender%40mowdeck-test.iam.gserviceaccount.com",
      "universe_domain": "googleapis.com",
    ]
    for name in omitting { fields[name] = nil }
    return WireCoding.encode(fields)
  }

  /// Writes a credentials file readable by its owner only, as an operator should keep it.
  public static func writeServiceAccount(_ json: [UInt8], to url: URL) throws {
    try Data(json).write(to: url)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
  }
}
