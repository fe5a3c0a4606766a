import Events
import FoundationEssentials
import Infrastructure

/// `GET /api/v1/notifications/webpush/key`: the VAPID public key a browser subscribes with
/// (`applicationServerKey`), `{"public_key":"<65 bytes, base64url>"}`; 404 when this server
/// offers no Web Push (no key configured, or one that cannot be read: then the page offers
/// no subscription, and the log says why at start).
struct WebPushKeyRoute: Sendable {
  static let pattern = "/api/v1/notifications/webpush/key"

  struct Answer: Encodable {
    let publicKey: String
    enum CodingKeys: String, CodingKey { case publicKey = "public_key" }
  }

  let publicKey: [UInt8]?

  /// The public half of `MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH`, if it is set and reads.
  static func publicKey(configuration: Configuration, logger: Logger) -> [UInt8]? {
    guard let path = configuration.webPushVAPIDKeyPath else { return nil }
    guard let pem = FileManager.default.contents(atPath: path),
      let key = ES256SigningKey(pem: Array(pem))
    else {
      logger.warning(
        "the VAPID key cannot be read: browsers are offered no Web Push",
        ["variable": "MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH", "path": path])
      return nil
    }
    return key.publicKeyUncompressed
  }

  func register(in router: inout HTTPRouter) {
    let answer: HTTPResponse =
      publicKey.map { .json(200, Answer(publicKey: Base64URL.encode($0))) } ?? .plain(404)
    router.get(Self.pattern) { _ in .now(answer) }
  }
}
