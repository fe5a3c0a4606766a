import Events
import Foundation
import Infrastructure
import Testing

@testable import FanoutWorker

@Suite struct IngressAlarmTests {
  let subjects = Subjects(prefix: "")
  let subject = "notifications.alarms.m-1"

  func parse(_ payload: String, subject: String? = nil) -> Result<
    IngressAlarm, IngressAlarm.Rejection
  > {
    IngressAlarm.parse(
      subject: subject ?? self.subject, subjects: subjects, payload: Array(payload.utf8))
  }

  @Test func acceptsTheContractExample() throws {
    let alarm = try parse(
      """
      {"event_id": "7d7c3b0e-1111-4222-8333-444455556666", "mower_id": "m-1",
       "kind": "mower_lifted", "occurred_at": "2026-11-29T10:15:00Z", "mower_name": "Robbie",
       "reason": "trapped"}
      """
    ).get()
    #expect(alarm.eventID == UUID(uuidString: "7d7c3b0e-1111-4222-8333-444455556666"))
    #expect(alarm.alarmClass == .theft)
    #expect(alarm.mowerName == "Robbie")
    #expect(alarm.reason == "trapped")
    #expect(alarm.occurredAt == Timestamp.parse("2026-11-29T10:15:00Z"))
  }

  @Test func optionalFieldsMayBeAbsentOrNull() throws {
    let alarm = try parse(
      """
      {"event_id": "7d7c3b0e-1111-4222-8333-444455556666", "mower_id": "m-1",
       "kind": "battery_low", "occurred_at": "2026-11-29T10:15:00+01:00", "mower_name": null}
      """
    ).get()
    #expect(alarm.mowerName == nil)
    #expect(alarm.reason == nil)
    #expect(alarm.alarmClass == .routine)
  }

  static let malformed: [(String, IngressAlarm.Rejection)] = [
    ("", .invalidJSON),
    ("\u{00}\u{ff} garbage", .invalidJSON),
    ("[1, 2]", .invalidJSON),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-1\"", .invalidJSON
    ),
    (
      "{\"mower_id\": \"m-1\", \"kind\": \"mower_lifted\", \"occurred_at\": \"2026-11-29T10:15:00Z\"}",
      .missingEventID
    ),
    (
      "{\"event_id\": \"not-a-uuid\", \"mower_id\": \"m-1\", \"kind\": \"mower_lifted\", \"occurred_at\": \"2026-11-29T10:15:00Z\"}",
      .invalidEventID
    ),
    (
      "{\"event_id\": 42, \"mower_id\": \"m-1\", \"kind\": \"mower_lifted\", \"occurred_at\": \"2026-11-29T10:15:00Z\"}",
      .invalidEventID
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"kind\": \"mower_lifted\", \"occurred_at\": \"2026-11-29T10:15:00Z\"}",
      .missingMowerID
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"\", \"kind\": \"mower_lifted\", \"occurred_at\": \"2026-11-29T10:15:00Z\"}",
      .invalidMowerID
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-other\", \"kind\": \"mower_lifted\", \"occurred_at\": \"2026-11-29T10:15:00Z\"}",
      .subjectMismatch
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-1\", \"occurred_at\": \"2026-11-29T10:15:00Z\"}",
      .missingKind
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-1\", \"kind\": 7, \"occurred_at\": \"2026-11-29T10:15:00Z\"}",
      .invalidKind
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-1\", \"kind\": \"mower_exploded\", \"occurred_at\": \"2026-11-29T10:15:00Z\"}",
      .unknownKind
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-1\", \"kind\": \"mower_lifted\"}",
      .missingOccurredAt
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-1\", \"kind\": \"mower_lifted\", \"occurred_at\": \"yesterday\"}",
      .invalidOccurredAt
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-1\", \"kind\": \"mower_lifted\", \"occurred_at\": \"2026-11-29T10:15:00Z\", \"mower_name\": 5}",
      .invalidMowerName
    ),
    (
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-1\", \"kind\": \"mower_stuck\", \"occurred_at\": \"2026-11-29T10:15:00Z\", \"reason\": [1]}",
      .invalidReason
    ),
  ]

  @Test(arguments: malformed)
  func rejectsMalformedPayloadsWithTheirReason(payload: String, reason: IngressAlarm.Rejection) {
    #expect(throws: reason) { try parse(payload).get() }
  }

  @Test func aPayloadOnAnotherMowersSubjectIsAMismatch() {
    let payload =
      "{\"event_id\": \"7d7c3b0e-1111-4222-8333-444455556666\", \"mower_id\": \"m-1\", \"kind\": \"mower_lifted\", \"occurred_at\": \"2026-11-29T10:15:00Z\"}"
    #expect(throws: IngressAlarm.Rejection.subjectMismatch) {
      try parse(payload, subject: "notifications.alarms.m-2").get()
    }
  }

  /// Found by fuzzing: a valid RFC 3339 offset can name an instant in year 10000, which no
  /// four-digit timestamp can write back. It is kept as the last instant of year 9999.
  @Test func anInstantPastYear9999IsKeptAsItsLastSecond() throws {
    let alarm = try parse(
      """
      {"event_id": "7d7c3b0e-1111-4222-8333-444455556666", "mower_id": "m-1",
       "kind": "battery_low", "occurred_at": "9999-12-31T23:59:59-23:59"}
      """
    ).get()
    #expect(Timestamp.format(alarm.occurredAt) == "9999-12-31T23:59:59Z")
    #expect(Timestamp.parse(Timestamp.format(alarm.occurredAt)) == alarm.occurredAt)
  }

  /// Names and reasons lose their control characters and are cut; the alarm goes on.
  @Test func namesAndReasonsAreCleanedAndCut() throws {
    let alarm = try parse(
      """
      {"event_id": "7d7c3b0e-1111-4222-8333-444455556666", "mower_id": "m-1",
       "kind": "mower_stuck", "occurred_at": "2026-11-29T10:15:00Z",
       "mower_name": "Rob\\u0000bie\\u007f\\n\(String(repeating: "x", count: 100))",
       "reason": "\(String(repeating: "r", count: 300))"}
      """
    ).get()
    #expect(alarm.mowerName == "Robbie" + String(repeating: "x", count: 58))
    #expect(alarm.reason == String(repeating: "r", count: 128))
  }
}
