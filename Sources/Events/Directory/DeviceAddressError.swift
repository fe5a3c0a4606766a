/// What is wrong with a device a user or an operator asked to register; each message names
/// the field, as the 400 answer and the command line show it.
public enum DeviceAddressError: Error, Equatable, Sendable, CustomStringConvertible {
  case unknownPlatform
  case badAPNsToken
  case badEnvironment
  case badEndpoint
  case endpointHostNotAllowed(String)
  case endpointPortNotAllowed(Int)
  case badP256DH
  case badAuth
  case badFCMToken
  case ntfyNotConfigured

  public var description: String {
    switch self {
    case .unknownPlatform: return "platform must be apns, webpush, fcm or ntfy"
    case .badAPNsToken: return "token must be 64 hexadecimal digits"
    case .badEnvironment: return "environment must be sandbox or production"
    case .badEndpoint: return "endpoint must be an https URL"
    case .endpointHostNotAllowed(let host):
      return "endpoint host \(host) is not an allowed push service"
    case .endpointPortNotAllowed(let port):
      return "endpoint port \(port) is not allowed: push services listen on 443"
    case .badP256DH: return "keys.p256dh must be a P-256 public key (65 bytes, base64url)"
    case .badAuth: return "keys.auth must be 16 bytes, base64url"
    case .badFCMToken:
      return "token must be an FCM registration token (1 to 4096 of A-Z a-z 0-9 _ : -)"
    case .ntfyNotConfigured: return "platform ntfy is not offered by this server"
    }
  }
}
