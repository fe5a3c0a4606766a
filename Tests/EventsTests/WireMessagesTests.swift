import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Every message that crosses a process boundary, against its golden JSON in
/// `Tests/Fixtures/wire`: what the code writes is byte for byte the file, and the file reads
/// back as the same value. A changed field name, type or date format fails here first.
@Suite struct WireMessagesTests {
  static let eventID = UUID(uuidString: "7d7c3b0e-1111-4222-8333-444455556666")!

  static func golden(_ name: String) throws -> [UInt8] {
    let text = try String(
      contentsOfFile: TestServers.fixture("wire/\(name).json"), encoding: .utf8)
    return Array(text.trimmingCharacters(in: .newlines).utf8)
  }

  func check<T: Codable & Equatable>(_ value: T, _ name: String) throws {
    let golden = try Self.golden(name)
    #expect(
      String(decoding: WireCoding.encode(value), as: UTF8.self)
        == String(decoding: golden, as: UTF8.self), "\(name)")
    #expect(try WireCoding.decode(T.self, from: golden) == value, "\(name)")
  }

  @Test func theIngressAlarm() throws {
    try check(
      AlarmMessage(
        eventID: Self.eventID, mowerID: "m-4711", kind: "mower_lifted",
        occurredAt: Timestamp.parse("2026-11-29T10:15:00Z")!, mowerName: "Robbie",
        reason: "trapped"), "alarm")
  }

  @Test func theFanoutsDecision() throws {
    try check(
      AlarmDecided(streamSequence: 42, eventID: Self.eventID, outcome: "pushed", mowerID: "m-4711"),
      "fanout-decided")
  }

  @Test func theCameraRequestAndItsErrorReply() throws {
    try check(PhotoRequest(timeoutSeconds: 20), "photo-request")
    try check(CameraErrorReply(error: "asleep"), "camera-error")
  }

  @Test func theDeliveryHandoff() throws {
    var handoff = DeliveryHandoff(
      leaseToken: 9_007_199_254_740_993, eventID: Self.eventID,
      createdAt: Timestamp.parse("2026-11-29T10:15:00.123456Z")!, kind: "mower_lifted",
      mowerName: "Robbie", reason: "trapped",
      imageID: UUID(uuidString: "44444444-2222-4333-8444-555555555555"),
      deliveries: [
        DeliveryHandoff.Delivery(
          deliveryID: UUID(uuidString: "11111111-2222-4333-8444-555555555555")!,
          notificationID: UUID(uuidString: "22222222-2222-4333-8444-555555555555")!,
          deviceID: UUID(uuidString: "33333333-2222-4333-8444-555555555555")!,
          token: String(repeating: "ab", count: 32), environment: "sandbox",
          deviceRegisteredAt: Timestamp.parse("2026-01-02T03:04:05.000007Z")!)
      ])
    handoff.answerBy = Timestamp.parse("2026-11-29T10:15:01.5Z")
    try check(handoff, "delivery-handoff")
  }

  @Test func unknownFieldsAreIgnoredAndAMissingOneIsNamed() throws {
    let extra = Array(
      #"{"error":"busy","firmware":"4.2","extra":{"nested":[1,2]}}"#.utf8)
    #expect(try WireCoding.decode(CameraErrorReply.self, from: extra).error == "busy")
    #expect(throws: WireError(message: "AlarmDecided", field: "stream_seq", isJSON: true)) {
      try WireCoding.decode(AlarmDecided.self, from: Array(#"{"outcome":"pushed"}"#.utf8))
    }
    #expect(throws: WireError(message: "PhotoRequest", field: nil, isJSON: false)) {
      try WireCoding.decode(PhotoRequest.self, from: Array("not json".utf8))
    }
  }
}
