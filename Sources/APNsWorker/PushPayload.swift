import Events
import FoundationEssentials
import Infrastructure

/// The APNs payload and headers of one delivery attempt (docs/interfaces.md#apns).
struct PushPayload: Sendable {
  let json: String
  let imageURL: String?

  /// APNs refuses a larger payload (413 PayloadTooLarge), and then the alarm is lost.
  static let maximumBytes = 4096

  /// - Parameters:
  ///   - signer: nil when no image key is configured.
  ///   - origin: the public origin of image URLs; nil when not configured.
  ///   - now: the send time; the URL expires `ttlSeconds` after it, so a retry gets a new URL.
  init(
    delivery: ClaimedDelivery, signer: ImageURLSigner?, origin: String?, ttlSeconds: Int, now: Date
  ) {
    let text = AlarmText(
      kind: delivery.kind, mowerName: delivery.mowerName, reason: delivery.reason)
    var aps: [String: Any] = ["sound": "default"]
    var payload: [String: Any] = [
      "notification_id": delivery.notificationID.uuidString.lowercased()
    ]
    if delivery.imageID != nil, let signer, let origin {
      let expiry = Int64(now.timeIntervalSince1970) + Int64(ttlSeconds)
      let url = signer.url(origin: origin, notificationID: delivery.notificationID, expiry: expiry)
      aps["mutable-content"] = 1
      payload["image_url"] = url
      imageURL = url
    } else {
      imageURL = nil
    }
    json = Self.encode(payload, aps: aps, title: text.title, body: text.body)
  }

  /// The payload as JSON, its alert shortened when the whole would pass `maximumBytes`
  /// (docs/interfaces.md#apns): a 5,600-character mower name still reaches the phone, with its
  /// photo and its id whole.
  private static func encode(
    _ payload: [String: Any], aps: [String: Any], title: String, body: String
  ) -> String {
    func encoded(_ title: String, _ body: String) -> String {
      var aps = aps
      aps["alert"] = ["title": title, "body": body]
      var payload = payload
      payload["aps"] = aps
      return JSON.encode(payload)
    }
    var json = encoded(title, body)
    guard json.utf8.count > maximumBytes else { return json }
    // What the alert's two texts may take: all but the rest of the payload, measured as
    // encoded (keys are sorted, so the rest does not move when the texts shrink).
    var budget = maximumBytes - encoded("", "").utf8.count
    while true {
      let alert = AlertFitting.fit(title: title, body: body, bytes: budget)
      json = encoded(alert.title, alert.body)
      // Only if the encoder escapes differently from `AlertFitting`'s count: cut deeper.
      let excess = json.utf8.count - maximumBytes
      guard excess > 0, budget > 0 else { return json }
      budget -= excess
    }
  }
}
