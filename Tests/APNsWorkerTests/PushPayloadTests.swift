import Events
import Foundation
import Infrastructure
import Testing

@testable import APNsWorker

@Suite struct PushPayloadTests {
  let signer = ImageURLSigner(key: Array("current-secret".utf8))
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  func delivery(
    imageID: UUID?, kind: String = "mower_stuck", mowerName: String = "Robbie",
    reason: String? = "trapped"
  ) -> ClaimedDelivery {
    let values: [String?] = [
      UUID().uuidString, UUID().uuidString, UUID().uuidString, "7", "1", "2026-11-29 10:00:00+00",
      UUID().uuidString, String(repeating: "a", count: 64), "production", "t",
      "2026-11-01 00:00:00+00",
      imageID?.uuidString, kind, mowerName, reason,
    ]
    let columns = [
      "delivery_id", "notification_id", "event_id", "lease_token", "attempts", "created_at",
      "device_id", "token", "environment", "active", "registered_at", "image_id", "kind",
      "mower_name", "reason",
    ]
    return try! ClaimedDelivery(row: Row(columns: columns, values: values))
  }

  func object(_ payload: PushPayload) throws -> [String: JSONValue] {
    try #require(JSON.object(from: payload.body))
  }

  @Test func aReservedPhotoAddsMutableContentAndASignedURL() throws {
    let delivery = delivery(imageID: UUID())
    let payload = PushPayload(
      delivery: delivery, signer: signer, origin: "https://owner.example", ttlSeconds: 600, now: now
    )
    let json = try object(payload)
    let aps = try #require(json["aps"]?.object)
    #expect(aps["mutable-content"]?.integer == 1)
    #expect(aps["sound"]?.string == "default")
    let alert = try #require(aps["alert"]?.object)
    #expect(alert["title"]?.string == "Robbie needs help")
    #expect(alert["body"]?.string == "The mower is trapped and cannot move.")
    #expect(json["notification_id"]?.string == delivery.notificationID.uuidString.lowercased())
    let text = try #require(json["image_url"]?.string)
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
    #expect((json["aps"]?.object)?["mutable-content"] == nil)
    #expect(payload.imageURL == nil)
  }

  // MARK: At most 4,096 bytes (docs/interfaces.md#apns)

  /// A payload with a photo, as the phone gets it, and its alert's texts.
  func oversized(name: String, reason: String? = "trapped") throws
    -> (payload: PushPayload, delivery: ClaimedDelivery, title: String, body: String)
  {
    let delivery = delivery(imageID: UUID(), mowerName: name, reason: reason)
    let payload = PushPayload(
      delivery: delivery, signer: signer, origin: "https://owner.example", ttlSeconds: 600, now: now
    )
    let json = try object(payload)
    let alert = try #require((json["aps"]?.object)?["alert"]?.object)
    // The photo and the id are never touched.
    #expect(payload.imageURL != nil)
    #expect(json["image_url"]?.string == payload.imageURL)
    #expect(json["notification_id"]?.string == delivery.notificationID.uuidString.lowercased())
    #expect((json["aps"]?.object)?["mutable-content"]?.integer == 1)
    return (
      payload, delivery, try #require(alert["title"]?.string),
      try #require(alert["body"]?.string)
    )
  }

  /// Plain, two-byte, four-byte, several-scalar (one family emoji is one character of five
  /// scalars) and escaped characters (`\b` in two bytes, `\u0001` in six; `/` not escaped):
  /// each 5,600 times in the mower's name.
  @Test(arguments: ["a", "ü", "🙂", "👨‍👩‍👧", "\"", "\\", "\u{1}", "\u{8}", "/", "e\u{301}"])
  func aHugeNameIsCutToFitAndNothingElseIs(character: String) throws {
    let name = String(repeating: character, count: 5600)
    let (payload, _, title, body) = try oversized(name: name)
    let bytes = payload.body.count
    #expect(bytes <= PushPayload.maximumBytes)
    // Cut no deeper than needed: within one character (at most 25 bytes encoded) of the limit.
    #expect(bytes > PushPayload.maximumBytes - 25)
    #expect(title.hasSuffix("…"))
    // Only whole characters stay: the title is the name's start, character by character.
    let kept = title.dropLast()
    #expect(!kept.isEmpty)
    #expect(kept.allSatisfy { String($0) == character })
    #expect(body == "The mower is trapped and cannot move.")
  }

  @Test func aHugeReasonCutsTheBodyAndKeepsTheTitle() throws {
    let (payload, _, title, body) = try oversized(
      name: "Robbie", reason: String(repeating: "wheel ", count: 150_000))
    #expect(payload.body.count <= PushPayload.maximumBytes)
    #expect(title == "Robbie needs help")
    #expect(body.hasPrefix("The mower is stuck (wheel wheel"))
    // Cut after the word, not after the space before the ellipsis.
    #expect(body.hasSuffix("wheel…"))
  }

  @Test func aHugeNameAndReasonShareTheRoom() throws {
    let (payload, _, title, body) = try oversized(
      name: String(repeating: "n", count: 5600), reason: String(repeating: "r", count: 5600))
    #expect(payload.body.count <= PushPayload.maximumBytes)
    #expect(title.hasSuffix("…") && body.hasSuffix("…"))
    #expect(title.utf8.count > 1500 && body.utf8.count > 1500)
  }

  @Test func aPayloadThatFitsIsUnchanged() throws {
    // Just under the limit with the photo: nothing is cut.
    let base = try oversized(name: "x")
    let room = PushPayload.maximumBytes - base.payload.body.count
    let name = "x" + String(repeating: "a", count: room)
    let (payload, _, title, _) = try oversized(name: name)
    #expect(payload.body.count == PushPayload.maximumBytes)
    #expect(title == "\(name) needs help")
  }
}
