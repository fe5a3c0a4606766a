import Events
import FoundationEssentials

/// The APNs payload and headers of one delivery attempt (CONTRACT.md section 7).
struct PushPayload: Sendable {
  let json: String
  let imageURL: String?

  /// - Parameters:
  ///   - signer: nil when no image key is configured.
  ///   - origin: the public origin of image URLs; nil when not configured.
  ///   - now: the send time; the URL expires `ttlSeconds` after it, so a retry gets a new URL.
  init(
    delivery: ClaimedDelivery, signer: ImageURLSigner?, origin: String?, ttlSeconds: Int, now: Date
  ) {
    let text = AlarmText(
      kind: delivery.kind, mowerName: delivery.mowerName, reason: delivery.reason)
    var aps: [String: Any] = [
      "alert": ["title": text.title, "body": text.body], "sound": "default",
    ]
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
    payload["aps"] = aps
    json = JSON.encode(payload)
  }
}
