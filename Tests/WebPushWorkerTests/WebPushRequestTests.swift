import Events
import Foundation
import Infrastructure
import Testing

@testable import WebPushWorker

/// One attempt's request, read back as a push service and the browser would: the headers,
/// the VAPID token for the endpoint's origin, and the message decrypted with the
/// subscription's private key.
@Suite struct WebPushRequestTests {
  static let browser = try! P256KeyPair()
  static let secret = [UInt8](repeating: 5, count: 16)
  static let vapidKey = try! ES256SigningKey.generate()

  static func delivery(
    followup: Bool = false, alarmClass: String = "theft", createdAt: Date = Date(),
    keys: ChannelDelivery.WebPushKeys? = keys
  ) -> ChannelDelivery {
    ChannelDelivery(
      deliveryID: UUID(), notificationID: UUID(uuidString: "0f8e2f4c-1111-4222-8333-944455556666")!,
      eventID: UUID(), leaseToken: 1, attempt: 1, createdAt: createdAt, followup: followup,
      platform: .webpush, deviceID: UUID(),
      address: "https://push.example.com:8443/send/secret?x=1", webPushKeys: keys,
      deviceActive: true, imageID: UUID(), kind: "mower_lifted", alarmClass: alarmClass,
      mowerName: "Robbie", reason: nil)
  }

  static let keys = ChannelDelivery.WebPushKeys(
    p256dh: Base64URL.encode(browser.publicKeyUncompressed), auth: Base64URL.encode(secret))

  func make(_ delivery: ChannelDelivery, imageURL: String? = nil, now: Date = Date()) throws
    -> HTTPClientRequest
  {
    try WebPushRequest.make(
      delivery, message: WebPushMessage(delivery: delivery, imageURL: imageURL),
      vapid: VAPIDHeaders(
        vapid: try VAPIDAuthorization(key: Self.vapidKey, subject: "mailto:ops@example.com")),
      now: now)
  }

  func headers(_ request: HTTPClientRequest) -> [String: String] {
    Dictionary(uniqueKeysWithValues: request.headers)
  }

  @Test func theAlarmsMessageIsEncryptedToTheBrowserWithVAPIDForTheOrigin() throws {
    let delivery = Self.delivery()
    let request = try make(delivery)
    #expect(request.url == delivery.address)
    let headers = headers(request)
    #expect(headers["content-encoding"] == "aes128gcm")
    #expect(headers["urgency"] == "high")
    #expect(headers["topic"] == "0f8e2f4c111142228333944455556666")
    #expect(Int(headers["ttl"] ?? "") ?? 0 > 1700)
    let vapid = try VAPIDVerifier.verify(headerValue: headers["authorization"] ?? "", now: Date())
    #expect(vapid.claims.aud == "https://push.example.com:8443")
    #expect(vapid.claims.sub == "mailto:ops@example.com")
    #expect(vapid.publicKey == Self.vapidKey.publicKeyUncompressed)
    let plaintext = try WebPushCipher.decrypt(
      body: request.body, userAgentKey: Self.browser, authSecret: Self.secret)
    let message = try WireCoding.decode(WebPushMessage.self, from: plaintext)
    #expect(message.title == "Robbie was lifted")
    #expect(message.notificationID == "0f8e2f4c-1111-4222-8333-944455556666")
    #expect(message.tag == message.notificationID)
    #expect(message.kind == "mower_lifted")
    #expect(message.imageURL == nil)
    // Never a mower, user or device id, nor an image URL in the alarm's own message.
    let text = String(decoding: plaintext, as: UTF8.self)
    #expect(!text.contains("image_url") && !text.contains("mower_id") && !text.contains("user"))
  }

  @Test func theFollowUpCarriesTheImageURLUnderTheSameTopicAndTag() throws {
    let first = try make(Self.delivery())
    let followUp = try make(
      Self.delivery(followup: true), imageURL: "https://owner.example/api/v1/x?e=1&s=2")
    #expect(headers(followUp)["topic"] == headers(first)["topic"])
    let message = try WireCoding.decode(
      WebPushMessage.self,
      from: try WebPushCipher.decrypt(
        body: followUp.body, userAgentKey: Self.browser, authSecret: Self.secret))
    #expect(message.imageURL == "https://owner.example/api/v1/x?e=1&s=2")
    #expect(message.tag == "0f8e2f4c-1111-4222-8333-944455556666")
  }

  @Test func aRoutineAlarmIsNormalUrgencyAndTheTTLShrinksWithAge() throws {
    let now = Date()
    let request = try make(
      Self.delivery(alarmClass: "routine", createdAt: now.addingTimeInterval(-600)), now: now)
    #expect(headers(request)["urgency"] == "normal")
    #expect(headers(request)["ttl"] == "1200")
    let old = try make(Self.delivery(createdAt: now.addingTimeInterval(-4000)), now: now)
    #expect(headers(old)["ttl"] == "0")
  }

  @Test func keysThatCannotBeUsedAreATypedFailure() {
    let offTheCurve = ChannelDelivery.WebPushKeys(
      p256dh: Base64URL.encode([4] + [UInt8](repeating: 1, count: 64)), auth: Self.keys.auth)
    #expect(throws: WebPushRequest.Failure.self) { try make(Self.delivery(keys: offTheCurve)) }
    #expect(throws: WebPushRequest.Failure.self) { try make(Self.delivery(keys: nil)) }
  }
}

/// The VAPID header is signed once per push service origin and reused for an hour.
@Suite struct VAPIDHeadersTests {
  @Test func oneSignaturePerOriginAndHour() throws {
    let headers = VAPIDHeaders(
      vapid: try VAPIDAuthorization(
        key: try ES256SigningKey.generate(), subject: "mailto:ops@example.com"))
    let now = Date()
    let first = try headers.value(endpoint: "https://push.example/a", now: now)
    #expect(try headers.value(endpoint: "https://push.example/b?x", now: now + 3599) == first)
    let other = try headers.value(endpoint: "https://other.example/a", now: now)
    #expect(other != first)
    #expect(
      try VAPIDVerifier.verify(headerValue: other, now: now).claims.aud == "https://other.example")
    let renewed = try headers.value(endpoint: "https://push.example/a", now: now + 3600)
    #expect(renewed != first)
    #expect(
      try VAPIDVerifier.verify(headerValue: renewed, now: now + 3600).claims.exp
        == Int((now + 3600).timeIntervalSince1970 + VAPIDAuthorization.lifetime))
  }
}
