import Events
import FoundationEssentials
import Infrastructure

/// The APNs payload and headers of one delivery attempt (docs/interfaces.md#apns).
struct PushPayload: Sendable {
  /// The request body: `PushBody` through `WireCoding`, at most `maximumBytes`.
  let body: [UInt8]
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
    if delivery.imageID != nil, let signer, let origin {
      let expiry = Int64(now.timeIntervalSince1970) + Int64(ttlSeconds)
      imageURL = signer.url(origin: origin, notificationID: delivery.notificationID, expiry: expiry)
    } else {
      imageURL = nil
    }
    body = Self.encode(
      PushBody(
        notificationID: delivery.notificationID, imageURL: imageURL, title: text.title,
        body: text.body))
  }

  /// The payload as JSON, its alert shortened when the whole would pass `maximumBytes`
  /// (docs/interfaces.md#apns): a 5,600-character mower name still reaches the phone, with its
  /// photo and its id whole.
  private static func encode(_ whole: PushBody) -> [UInt8] {
    var json = WireCoding.encode(whole)
    guard json.count > maximumBytes else { return json }
    // What the alert's two texts may take: all but the rest of the payload, measured as
    // encoded (keys are sorted, so the rest does not move when the texts shrink).
    var budget = maximumBytes - WireCoding.encode(whole.with(title: "", body: "")).count
    let alert = whole.aps.alert
    while true {
      let fitted = AlertFitting.fit(title: alert.title, body: alert.body, bytes: budget)
      json = WireCoding.encode(whole.with(title: fitted.title, body: fitted.body))
      // Only if the encoder escapes differently from `AlertFitting`'s count: cut deeper.
      let excess = json.count - maximumBytes
      guard excess > 0, budget > 0 else { return json }
      budget -= excess
    }
  }
}
