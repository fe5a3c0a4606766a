import Events
import FoundationEssentials
import Infrastructure

/// The Web Push channel (ADR 0030): each attempt's message encrypted to its browser's
/// subscription (RFC 8291), VAPID signed (RFC 8292), posted to the push service, and its
/// answer classed by `WebPushPolicy`. The shared `ChannelService` claims and records.
struct WebPushChannel: PushChannel {
  let client: HTTPClient
  let vapid: VAPIDHeaders
  let logger: Logger

  var platform: DevicePlatform { .webpush }
  var workerName: String { "WebPushWorker" }
  var displayName: String { "Web Push" }

  func attempt(_ delivery: ChannelDelivery, imageURL: String?, now: Date) async -> ChannelAnswer {
    let request: HTTPClientRequest
    do {
      request = try WebPushRequest.make(
        delivery, message: WebPushMessage(delivery: delivery, imageURL: imageURL), vapid: vapid,
        now: now)
    } catch {
      // A subscription whose keys cannot be encrypted to, or an endpoint VAPID cannot name:
      // no attempt can ever succeed.
      logger.warning(
        "a Web Push subscription cannot be used",
        ["error": error, "delivery_id": delivery.deliveryID, "service": delivery.tokenPrefix])
      return .failed(status: nil, reason: "bad_subscription", deactivateDevice: true)
    }
    return WebPushPolicy.classify(await client.send(request))
  }

  func shutdown() { client.shutdown() }
}
