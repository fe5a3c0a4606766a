import Events
import Foundation
import Infrastructure
import Testing

@Suite struct NewEventTests {
  static let id = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!

  @Test func theDataDecidesTheTypeAndIsWrittenWithLowerCaseIDsAndNulls() {
    let event = NewEvent(
      PhotoFailed(
        imageID: Self.id, reason: "timeout", detail: nil, afterMilliseconds: 20_000, attempt: 1),
      correlationID: Self.id)
    #expect(event.type == .photoFailed)
    #expect(event.causationID == nil)
    #expect(
      event.dataJSON
        == #"{"after_ms":20000,"attempt":1,"detail":null,"image_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","reason":"timeout"}"#
    )
  }

  @Test func datesAreWrittenAsTimestampWritesThem() {
    let event = NewEvent(
      AlarmSuppressed(
        alarmClass: "error", cooldownSeconds: 60,
        lastPushOn: Date(timeIntervalSince1970: 1_795_947_300.25), secondsSinceLastPush: 3),
      correlationID: Self.id)
    #expect(event.dataJSON.contains(#""last_push_on":"2026-11-29T10:15:00.250000Z""#))
  }
}
