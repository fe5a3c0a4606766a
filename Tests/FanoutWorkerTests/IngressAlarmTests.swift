import Events
import Foundation
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
}
