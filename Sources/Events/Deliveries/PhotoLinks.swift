import FoundationEssentials
import Infrastructure

/// The photo's URL for a channel's follow-up, signed when the message is sent so that it is
/// valid for the image URL lifetime from then (a retry gets a new one). Nil when no image
/// key or no public origin is configured: the follow-up then fails rather than repeat the
/// alarm without its photo.
public struct PhotoLinks: Sendable {
  public let signer: ImageURLSigner?
  public let origin: String?
  public let ttlSeconds: Int

  public init(signer: ImageURLSigner?, origin: String?, ttlSeconds: Int) {
    self.signer = signer
    self.origin = origin
    self.ttlSeconds = ttlSeconds
  }

  /// Whether follow-ups can carry a photo at all (for the start-up log line).
  public var enabled: Bool { signer != nil && origin != nil }

  public func url(for delivery: ChannelDelivery, now: Date) -> String? {
    guard delivery.imageID != nil, let signer, let origin else { return nil }
    let expiry = Int64(now.timeIntervalSince1970) + Int64(ttlSeconds)
    return signer.url(origin: origin, notificationID: delivery.notificationID, expiry: expiry)
  }
}
