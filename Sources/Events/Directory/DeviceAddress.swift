import FoundationEssentials
import Infrastructure

/// A device's address on its platform, checked (docs/interfaces.md#devices): what the
/// registration route and `mowdeck device add` store through `Directory.addDevice`.
public enum DeviceAddress: Sendable, Equatable {
  /// A 64-hex APNs token (lower case) and its environment.
  case apns(token: String, environment: String)
  /// A browser's `PushSubscription`: the push service's endpoint and the keys RFC 8291
  /// encrypts to, base64url as the browser gives them.
  case webPush(endpoint: String, p256dh: String, auth: String)
  /// An FCM registration token.
  case fcm(token: String)
  /// A topic on the installation's ntfy server, made by the server.
  case ntfy(topic: String)

  public static func checkedAPNs(token: String, environment: String?) throws(DeviceAddressError)
    -> DeviceAddress
  {
    guard HexToken.isWellFormed(token) else { throw .badAPNsToken }
    let environment = environment ?? "production"
    guard environment == "sandbox" || environment == "production" else {
      throw .badEnvironment
    }
    return .apns(token: token.lowercased(), environment: environment)
  }

  public static func checkedWebPush(
    endpoint: String, p256dh: String, auth: String, allowedHosts: [String]
  ) throws(DeviceAddressError) -> DeviceAddress {
    let endpoint = try WebPushEndpoint.check(endpoint, allowedHosts: allowedHosts)
    // An uncompressed P-256 point; whether it is on the curve is the sender's check.
    guard let key = Base64URL.decode(p256dh), key.count == 65, key[0] == 4 else {
      throw .badP256DH
    }
    guard let secret = Base64URL.decode(auth), secret.count == 16 else { throw .badAuth }
    return .webPush(endpoint: endpoint, p256dh: p256dh, auth: auth)
  }

  public static func checkedFCM(token: String) throws(DeviceAddressError) -> DeviceAddress {
    let allowed = { (byte: UInt8) in
      (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-")
    }
    guard (1...4096).contains(token.utf8.count), token.utf8.allSatisfy(allowed) else {
      throw .badFCMToken
    }
    return .fcm(token: token)
  }

  /// A fresh, unguessable ntfy topic: anyone who knows it can read the alarms sent to it.
  public static func newNtfyTopic() -> DeviceAddress {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return .ntfy(topic: "mowdeck-" + Hex.encode(bytes))
  }

  public var platform: DevicePlatform {
    switch self {
    case .apns: return .apns
    case .webPush: return .webpush
    case .fcm: return .fcm
    case .ntfy: return .ntfy
    }
  }

  /// The `devices.token` column: the platform's address of the device.
  var storedToken: String {
    switch self {
    case .apns(let token, _), .fcm(let token): return token
    case .webPush(let endpoint, _, _): return endpoint
    case .ntfy(let topic): return topic
    }
  }

  var environment: String? {
    if case .apns(_, let environment) = self { return environment }
    return nil
  }

  var webPushKeys: (p256dh: String, auth: String)? {
    if case .webPush(_, let p256dh, let auth) = self { return (p256dh, auth) }
    return nil
  }
}
