import Events
import FoundationEssentials
import Infrastructure

/// The HTTP request of one FCM attempt: `POST <fcm url>/v1/projects/<project_id>/messages:send`
/// with the OAuth access token as bearer and the message as JSON (docs/interfaces.md#fcm).
enum FCMRequest {
  /// As every push worker's: the lease outlasts it.
  static let timeoutSeconds = 10

  static func make(sendURL: String, accessToken: String, body: [UInt8]) -> HTTPClientRequest {
    HTTPClientRequest(
      url: sendURL,
      headers: [
        ("authorization", "Bearer \(accessToken)"),
        ("content-type", "application/json; charset=utf-8"),
      ],
      body: body, timeoutSeconds: timeoutSeconds)
  }

  /// The message's JSON, made once per attempt: a resend after renewing the access token
  /// sends the same bytes.
  static func body(_ delivery: ChannelDelivery, imageURL: String?, now: Date) -> [UInt8] {
    WireCoding.encode(
      FCMSendBody(message: FCMMessage(delivery: delivery, imageURL: imageURL, now: now)))
  }
}
