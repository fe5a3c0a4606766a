import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import APNsWorker

/// What the APNsWorker sends to APNs and reads back from it, against golden JSON in
/// `Tests/Fixtures/wire` (docs/interfaces.md#apns): the bytes are the file, and the file
/// reads back as the same value. The files are what the dictionaries written by `JSON.encode`
/// came to before these types, so the phone sees the same payload.
@Suite struct APNsWireTests {
  static let notificationID = UUID(uuidString: "9E27A6F0-3B1C-4D2E-8F40-5A6B7C8D9E0F")!

  static func golden(_ name: String) throws -> String {
    try String(contentsOfFile: TestServers.fixture("wire/\(name).json"), encoding: .utf8)
      .trimmingCharacters(in: .newlines)
  }

  func check<T: Codable & Equatable>(_ value: T, _ name: String) throws {
    let golden = try Self.golden(name)
    #expect(String(decoding: WireCoding.encode(value), as: UTF8.self) == golden, "\(name)")
    #expect(try WireCoding.decode(T.self, from: Array(golden.utf8)) == value, "\(name)")
  }

  @Test func thePushWithAPhotoAndWithout() throws {
    try check(
      PushBody(
        notificationID: Self.notificationID,
        imageURL:
          "https://mowdeck.example.com/api/v1/notifications/push-images/9e27a6f0-3b1c-4d2e-8f40-5a6b7c8d9e0f?e=1800000600&s=8VD-0Kgk_31E4PT7gKdCpzJYk7lSYLjbTSaN9A08DAM",
        title: "Robbie needs help", body: "The mower's wheels are slipping."), "apns-push")
    try check(
      PushBody(
        notificationID: Self.notificationID, imageURL: nil, title: "Robbie needs help",
        body: "The mower is stuck."), "apns-push-no-photo")
  }

  @Test func thePayloadOfADeliveryIsTheGoldenBody() throws {
    let values: [String?] = [
      UUID().uuidString, Self.notificationID.uuidString, UUID().uuidString, "7", "1",
      "2026-11-29 10:00:00+00", UUID().uuidString, String(repeating: "a", count: 64),
      "production", "t", "2026-11-01 00:00:00+00", UUID().uuidString, "mower_stuck", "Robbie",
      "wheel_slip",
    ]
    let columns = [
      "delivery_id", "notification_id", "event_id", "lease_token", "attempts", "created_at",
      "device_id", "token", "environment", "active", "registered_at", "image_id", "kind",
      "mower_name", "reason",
    ]
    let payload = PushPayload(
      delivery: try ClaimedDelivery(row: Row(columns: columns, values: values)),
      signer: ImageURLSigner(key: Array("current-secret".utf8)),
      origin: "https://mowdeck.example.com", ttlSeconds: 600,
      now: Date(timeIntervalSince1970: 1_800_000_000))
    #expect(String(decoding: payload.body, as: UTF8.self) == (try Self.golden("apns-push")))
  }

  @Test func theProviderTokensHeaderAndClaims() throws {
    try check(ProviderTokenHeader(keyID: "KEY123"), "apns-jwt-header")
    try check(ProviderTokenClaims(iss: "TEAM42", iat: 1_800_000_000), "apns-jwt-claims")
  }
}
