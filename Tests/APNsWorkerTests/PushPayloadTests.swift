import Events
import Foundation
import Testing

@testable import APNsWorker

@Suite struct PushPayloadTests {
  let signer = ImageURLSigner(key: Array("current-secret".utf8))
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  func delivery(imageID: UUID?, kind: String = "mower_stuck", reason: String? = "trapped")
    -> ClaimedDelivery
  {
    let values: [String?] = [
      UUID().uuidString, UUID().uuidString, UUID().uuidString, "7", "1", "2026-11-29 10:00:00+00",
      UUID().uuidString, String(repeating: "a", count: 64), "production", "t",
      "2026-11-01 00:00:00+00",
      imageID?.uuidString, kind, "Robbie", reason,
    ]
    let columns = [
      "delivery_id", "notification_id", "event_id", "lease_token", "attempts", "created_at",
      "device_id", "token", "environment", "active", "registered_at", "image_id", "kind",
      "mower_name", "reason",
    ]
    return try! ClaimedDelivery(row: Row(columns: columns, values: values))
  }

  func object(_ payload: PushPayload) throws -> [String: Any] {
    try #require(JSON.object(from: Array(payload.json.utf8)))
  }

  @Test func aReservedPhotoAddsMutableContentAndASignedURL() throws {
    let delivery = delivery(imageID: UUID())
    let payload = PushPayload(
      delivery: delivery, signer: signer, origin: "https://owner.example", ttlSeconds: 600, now: now
    )
    let json = try object(payload)
    let aps = try #require(json["aps"] as? [String: Any])
    #expect(aps["mutable-content"] as? Int == 1)
    #expect(aps["sound"] as? String == "default")
    let alert = try #require(aps["alert"] as? [String: Any])
    #expect(alert["title"] as? String == "Robbie needs help")
    #expect(alert["body"] as? String == "The mower is trapped and cannot move.")
    #expect(json["notification_id"] as? String == delivery.notificationID.uuidString.lowercased())
    let text = try #require(json["image_url"] as? String)
    let url = try #require(URLComponents(string: text))
    #expect(url.scheme == "https")
    #expect(url.host == "owner.example")
    #expect(
      url.path == "/api/v1/notifications/push-images/"
        + delivery.notificationID.uuidString.lowercased())
    let expiry = try #require(url.queryItems?.first { $0.name == "e" }?.value)
    let signature = try #require(url.queryItems?.first { $0.name == "s" }?.value)
    #expect(expiry == "1800000600")
    #expect(
      signer.verify(
        notificationID: delivery.notificationID.uuidString.lowercased(), expiry: expiry,
        signature: signature, now: now) == .valid(delivery.notificationID))
    // Nothing that identifies a user, mower, account or device.
    for secret in [delivery.token, "Robbie", delivery.deviceID.uuidString.lowercased()] {
      #expect(!url.string!.contains(secret))
    }
  }

  @Test func aRetryCarriesANewExpiry() throws {
    let delivery = delivery(imageID: UUID())
    let first = PushPayload(
      delivery: delivery, signer: signer, origin: "https://o.example", ttlSeconds: 600, now: now)
    let retry = PushPayload(
      delivery: delivery, signer: signer, origin: "https://o.example", ttlSeconds: 600,
      now: now.addingTimeInterval(30))
    #expect(first.imageURL != retry.imageURL)
    #expect(retry.imageURL?.contains("e=1800000630") == true)
  }

  @Test(arguments: [(false, true, true), (true, false, true), (true, true, false)])
  func noImageURLWithoutOriginKeyOrReservation(hasOrigin: Bool, hasKey: Bool, hasReservation: Bool)
    throws
  {
    let payload = PushPayload(
      delivery: delivery(imageID: hasReservation ? UUID() : nil), signer: hasKey ? signer : nil,
      origin: hasOrigin ? "https://o.example" : nil, ttlSeconds: 600, now: now)
    let json = try object(payload)
    #expect(json["image_url"] == nil)
    #expect((json["aps"] as? [String: Any])?["mutable-content"] == nil)
    #expect(payload.imageURL == nil)
  }
}
