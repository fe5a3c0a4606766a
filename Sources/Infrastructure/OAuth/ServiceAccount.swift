import FoundationEssentials

/// A Google service account's key file (the JSON the Firebase console downloads): who
/// signs (`client_email`), with which key (`private_key`, an RSA key in PKCS#8 PEM), where
/// to trade the signed JWT for an access token (`token_uri`), and the Firebase project the
/// messages go to (`project_id`). Other fields of the file are ignored. The key is read
/// when the file is, so a bad file stops the worker at start, not at its first message.
public struct ServiceAccount: Decodable, Sendable {
  public let projectID: String
  public let clientEmail: String
  public let tokenURI: String
  public let signingKey: RS256SigningKey

  public init(
    projectID: String, clientEmail: String, tokenURI: String, signingKey: RS256SigningKey
  ) {
    self.projectID = projectID
    self.clientEmail = clientEmail
    self.tokenURI = tokenURI
    self.signingKey = signingKey
  }

  /// The file's fields as they are, every one optional, so that a missing one is named.
  private struct File: Decodable {
    var type: String?
    var projectID: String?
    var privateKey: String?
    var clientEmail: String?
    var tokenURI: String?

    enum CodingKeys: String, CodingKey {
      case type
      case projectID = "project_id"
      case privateKey = "private_key"
      case clientEmail = "client_email"
      case tokenURI = "token_uri"
    }
  }

  /// Reads and checks the file at `path`.
  public static func load(path: String) throws(ServiceAccountError) -> ServiceAccount {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw .unreadable(path: path)
    }
    return try parse(Array(data))
  }

  /// Reads and checks the file's bytes.
  public static func parse(_ bytes: [UInt8]) throws(ServiceAccountError) -> ServiceAccount {
    let file: File
    do {
      file = try WireCoding.decode(File.self, from: bytes)
    } catch {
      guard error.isJSON, let field = error.field else { throw .notJSON }
      throw .missingField(field)
    }
    return try ServiceAccount(checking: file)
  }

  public init(from decoder: any Decoder) throws {
    self = try ServiceAccount(checking: File(from: decoder))
  }

  private init(checking file: File) throws(ServiceAccountError) {
    func required(_ value: String?, _ name: String) throws(ServiceAccountError) -> String {
      guard let value, !value.isEmpty else { throw .missingField(name) }
      return value
    }
    let type = try required(file.type, "type")
    guard type == "service_account" else { throw .wrongType(type) }
    projectID = try required(file.projectID, "project_id")
    clientEmail = try required(file.clientEmail, "client_email")
    tokenURI = try required(file.tokenURI, "token_uri")
    guard Self.isAcceptableTokenURI(tokenURI) else { throw .badTokenURI(tokenURI) }
    let pem = try required(file.privateKey, "private_key")
    do {
      signingKey = try RS256SigningKey(pem: pem)
    } catch {
      throw .badPrivateKey(error)
    }
  }

  /// https with a host; plain http only to the loopback interface, where a test's token
  /// endpoint may listen. The JWT is a credential: it must not cross a network in clear.
  static func isAcceptableTokenURI(_ uri: String) -> Bool {
    guard let components = URLComponents(string: uri), let host = components.host,
      !host.isEmpty
    else { return false }
    switch components.scheme?.lowercased() {
    case "https": return true
    case "http": return host == "127.0.0.1" || host == "localhost" || host == "[::1]"
    default: return false
    }
  }
}
