import Events
import FoundationEssentials
import Infrastructure

/// The HTTP request of one Web Push attempt (RFC 8030, 8291, 8292; docs/interfaces.md#web-push):
/// `POST <endpoint>` with the message encrypted to the subscription (`aes128gcm`), VAPID,
/// `TTL` (what is left of the message's half hour), `Urgency: high` for theft and error
/// alarms, and `Topic`: the notification id's 32 hex digits, so that a repeated delivery,
/// or the photo's follow-up, replaces the message waiting at the push service.
enum WebPushRequest {
  enum Failure: Error, CustomStringConvertible {
    case badKeys
    case encryption(WebPushCipherError)
    case vapid(VAPIDError)

    var description: String {
      switch self {
      case .badKeys: return "the subscription's keys are missing or not base64url"
      case .encryption(let error): return "encrypting failed: \(error)"
      case .vapid(let error): return "signing VAPID failed: \(error)"
      }
    }
  }

  static func make(
    _ delivery: ChannelDelivery, message: WebPushMessage, vapid: VAPIDHeaders, now: Date
  ) throws(Failure) -> HTTPClientRequest {
    guard let keys = delivery.webPushKeys, let key = Base64URL.decode(keys.p256dh),
      let secret = Base64URL.decode(keys.auth)
    else { throw .badKeys }
    let body: [UInt8]
    do {
      body = try WebPushCipher.encrypt(
        plaintext: WireCoding.encode(message), userAgentPublicKey: key, authSecret: secret)
    } catch {
      throw .encryption(error)
    }
    let authorization: String
    do {
      authorization = try vapid.value(endpoint: delivery.address, now: now)
    } catch {
      throw .vapid(error)
    }
    let age = now.timeIntervalSince(delivery.createdAt)
    let ttl = max(0, Int(ChannelBackoff.maximumAgeSeconds - age))
    let urgent = delivery.alarmClass == "theft" || delivery.alarmClass == "error"
    return HTTPClientRequest(
      url: delivery.address,
      headers: [
        ("authorization", authorization),
        ("content-encoding", "aes128gcm"),
        ("content-type", "application/octet-stream"),
        ("ttl", String(ttl)),
        ("urgency", urgent ? "high" : "normal"),
        ("topic", topic(delivery.notificationID)),
      ],
      body: body, timeoutSeconds: 10)
  }

  /// The notification id without its dashes: 32 characters of the base64url alphabet, as
  /// RFC 8030 section 5.4 allows.
  static func topic(_ notificationID: UUID) -> String {
    notificationID.uuidString.lowercased().replacing("-", with: "")
  }
}
