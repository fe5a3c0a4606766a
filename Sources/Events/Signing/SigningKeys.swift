import FoundationEssentials
import Infrastructure

/// Where the image-URL key comes from (docs/interfaces.md#configuration): the configured secret, or
/// one derived from the team's APNs key with HKDF-SHA256, so a deployment with an APNs key needs no
/// extra secret. Nil when neither is there: pushes then carry no image.
public enum SigningKeys {
  public enum Failure: Error, CustomStringConvertible {
    case unreadableAPNsKey(path: String)

    public var description: String {
      switch self {
      case .unreadableAPNsKey(let path):
        return "configuration error: MOWDECK_NOTIFICATIONS_APNS_KEY_PATH cannot be read (\(path))"
      }
    }
  }

  public static func signer(configuration: Configuration) throws -> ImageURLSigner? {
    let previous = configuration.imagePreviousSecrets.map { Array($0.utf8) }
    if let secret = configuration.imageSecret {
      return ImageURLSigner(key: Array(secret.utf8), previousKeys: previous)
    }
    guard let path = configuration.apnsKeyPath else { return nil }
    guard let pem = FileManager.default.contents(atPath: path), !pem.isEmpty else {
      throw Failure.unreadableAPNsKey(path: path)
    }
    guard
      let key = Crypto.hkdfSHA256(
        key: Array(pem), salt: Array("mowdeck".utf8),
        info: Array(ImageURLSigner.purpose.utf8), length: 32)
    else { throw Failure.unreadableAPNsKey(path: path) }
    return ImageURLSigner(key: key, previousKeys: previous)
  }
}
