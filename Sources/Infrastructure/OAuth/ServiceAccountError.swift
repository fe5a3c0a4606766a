/// Why a Google service-account file cannot be used, naming the field at fault, so the FCM
/// worker can refuse to start with one line the operator can act on.
public enum ServiceAccountError: Error, Equatable, CustomStringConvertible {
  case unreadable(path: String)
  /// Not a JSON object at all (a truncated download, the wrong file).
  case notJSON
  /// A field the token exchange needs is absent, empty or not a string.
  case missingField(String)
  /// `type` is not `service_account` (an OAuth client or a user credential file).
  case wrongType(String)
  /// `token_uri` is not an https URL (http only on the loopback interface, for tests).
  case badTokenURI(String)
  case badPrivateKey(RS256Error)

  public var description: String {
    switch self {
    case .unreadable(let path): return "cannot read the service-account file \(path)"
    case .notJSON: return "the service-account file is not a JSON object"
    case .missingField(let field):
      return "the service-account file has no \(field) (a non-empty string)"
    case .wrongType(let type):
      return "the credentials file is of type '\(type)', not a service_account key"
    case .badTokenURI(let uri): return "the service account's token_uri is not https: \(uri)"
    case .badPrivateKey(let error):
      return "the service account's private_key is unusable: \(error)"
    }
  }
}
