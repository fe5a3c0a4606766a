import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// The serving process's JSON answers and the body it reads, against golden JSON in
/// `Tests/Fixtures/wire` (docs/interfaces.md#the-serving-process-imageserveworker): the bytes
/// are the file, and the file reads back as the same value. Unlike the messages between the
/// workers, absent values are `null` and UUIDs lower case.
@Suite struct AnswerWireTests {
  static func golden(_ name: String) throws -> String {
    try String(contentsOfFile: TestServers.fixture("wire/\(name).json"), encoding: .utf8)
      .trimmingCharacters(in: .newlines)
  }

  func check<T: Codable & Equatable>(_ value: T, _ name: String) throws {
    let golden = try Self.golden(name)
    #expect(String(decoding: WireCoding.encode(value), as: UTF8.self) == golden, "\(name)")
    #expect(try WireCoding.decode(T.self, from: Array(golden.utf8)) == value, "\(name)")
  }

  static let items = [
    InboxItem(
      itemID: UUID(uuidString: "5D1C0A2B-3C4D-4E5F-8A6B-7C8D9E0F1A2B")!,
      notificationID: UUID(uuidString: "9E27A6F0-3B1C-4D2E-8F40-5A6B7C8D9E0F")!,
      mowerID: "m-4711", mowerName: "Robbie", kind: "mower_stuck", reason: "wheel_slip",
      occurredAt: Timestamp.parse("2026-05-04T07:12:09Z")!,
      createdAt: Timestamp.parse("2026-05-04T07:12:09.411201Z")!, photo: .ready),
    InboxItem(
      itemID: UUID(uuidString: "6D1C0A2B-3C4D-4E5F-8A6B-7C8D9E0F1A2B")!,
      notificationID: UUID(uuidString: "AE27A6F0-3B1C-4D2E-8F40-5A6B7C8D9E0F")!,
      mowerID: "m-4712", mowerName: nil, kind: "battery_low", reason: nil,
      occurredAt: Timestamp.parse("2026-05-04T06:00:00.5Z")!,
      createdAt: Timestamp.parse("2026-05-04T06:00:01.000001Z")!, photo: .none),
  ]

  @Test func theInboxPage() throws {
    try check(InboxAnswer(page: Self.items, more: true), "inbox-answer")
    // The last page: `next_before` is written, as `null`.
    #expect(
      String(decoding: WireCoding.encode(InboxAnswer(page: [], more: false)), as: UTF8.self)
        == #"{"items":[],"next_before":null}"#)
  }

  @Test func theDeviceRequestAndAnswers() throws {
    try check(
      DeviceRequest(token: String(repeating: "0f", count: 32), environment: "sandbox"),
      "device-request")
    try check(
      DeviceCreated(
        deviceID: UUID(uuidString: "ABCDEF00-1111-4222-8333-444455556666")!,
        environment: "sandbox"), "device-created")
    try check(ErrorAnswer(error: "token must be 64 hexadecimal digits"), "error-answer")
  }
}
