import Events
import Foundation
import Infrastructure
import Testing

/// The handoff's JSON: what the fan-out writes, the APNs worker reads back unchanged; what
/// it cannot read is refused with the field that failed.
@Suite struct DeliveryHandoffTests {
  static func handoff(imageID: UUID?, mowerName: String?) -> DeliveryHandoff {
    DeliveryHandoff(
      leaseToken: 9_007_199_254_740_993, eventID: UUID(),
      createdAt: Timestamp.parse("2026-11-29T19:00:00.123456Z")!, kind: "mower_lifted",
      mowerName: mowerName, reason: nil, imageID: imageID,
      deliveries: [
        DeliveryHandoff.Delivery(
          deliveryID: UUID(), notificationID: UUID(), deviceID: UUID(),
          token: String(repeating: "ab", count: 32), environment: "sandbox",
          deviceRegisteredAt: Timestamp.parse("2026-01-02T03:04:05.000007Z")!)
      ])
  }

  @Test(arguments: [(UUID?.none, String?.none), (UUID(), "Robbie \"the\" mower")])
  func whatIsWrittenReadsBackUnchanged(imageID: UUID?, mowerName: String?) throws {
    var handoff = Self.handoff(imageID: imageID, mowerName: mowerName)
    #expect(try DeliveryHandoff.decode(handoff.encoded) == handoff)
    handoff.answerBy = Timestamp.parse("2026-11-29T19:00:01.5Z")
    #expect(try DeliveryHandoff.decode(handoff.encoded) == handoff)
  }

  @Test func anUnreadableHandoffNamesTheField() throws {
    var object = try #require(
      JSON.object(from: Self.handoff(imageID: nil, mowerName: nil).encoded))
    object["created_at"] = "yesterday"
    #expect(throws: DeliveryHandoff.Unreadable(field: "created_at")) {
      try DeliveryHandoff.decode(Array(JSON.encode(object).utf8))
    }
    #expect(throws: DeliveryHandoff.Unreadable(field: "(not a JSON object)")) {
      try DeliveryHandoff.decode(Array("taken".utf8))
    }
  }
}
