import Events
import FoundationEssentials

/// An alarm as published on `notifications.alarms.<mower_id>` (CONTRACT.md section 3),
/// checked field by field.
struct IngressAlarm: Sendable, Equatable {
  let eventID: UUID
  let mowerID: String
  let kind: String
  let alarmClass: AlarmClass
  let occurredAt: Date
  let mowerName: String?
  let reason: String?

  /// Why a payload was rejected; the raw value is the `reason` of `alarm.rejected`.
  enum Rejection: String, Error, Sendable {
    case invalidJSON = "invalid_json"
    case missingEventID = "missing_event_id"
    case invalidEventID = "invalid_event_id"
    case missingMowerID = "missing_mower_id"
    case invalidMowerID = "invalid_mower_id"
    case subjectMismatch = "subject_mismatch"
    case missingKind = "missing_kind"
    case invalidKind = "invalid_kind"
    case unknownKind = "unknown_kind"
    case missingOccurredAt = "missing_occurred_at"
    case invalidOccurredAt = "invalid_occurred_at"
    case invalidMowerName = "invalid_mower_name"
    case invalidReason = "invalid_reason"
  }

  /// The event id a rejected payload still carries, if any, to correlate its rejection.
  static func eventIDIfAny(in payload: [UInt8]) -> UUID? {
    (JSON.object(from: payload)?["event_id"] as? String).flatMap(UUID.init(uuidString:))
  }

  /// Checks a payload in the order the contract's examples imply: JSON, event id, mower,
  /// kind, time, optional fields.
  static func parse(subject: String, subjects: Subjects, payload: [UInt8]) -> Result<
    IngressAlarm, Rejection
  > {
    guard let object = JSON.object(from: payload) else { return .failure(.invalidJSON) }
    guard let rawID = object["event_id"] else { return .failure(.missingEventID) }
    guard let idText = rawID as? String, let eventID = UUID(uuidString: idText) else {
      return .failure(.invalidEventID)
    }
    guard let rawMower = object["mower_id"] else { return .failure(.missingMowerID) }
    guard let mowerID = rawMower as? String, !mowerID.isEmpty, mowerID.count <= 200 else {
      return .failure(.invalidMowerID)
    }
    guard subject == subjects.alarm(mowerID: mowerID) else { return .failure(.subjectMismatch) }
    guard let rawKind = object["kind"] else { return .failure(.missingKind) }
    guard let kind = rawKind as? String else { return .failure(.invalidKind) }
    guard let alarmClass = AlarmCatalogue.alarmClass(of: kind) else {
      return .failure(.unknownKind)
    }
    guard let rawTime = object["occurred_at"] else { return .failure(.missingOccurredAt) }
    guard let timeText = rawTime as? String, let occurredAt = Timestamp.parse(timeText) else {
      return .failure(.invalidOccurredAt)
    }
    let mowerName = object["mower_name"]
    if let mowerName, !(mowerName is String || mowerName is JSON.Null) {
      return .failure(.invalidMowerName)
    }
    let reason = object["reason"]
    if let reason, !(reason is String || reason is JSON.Null) { return .failure(.invalidReason) }
    return .success(
      IngressAlarm(
        eventID: eventID, mowerID: mowerID, kind: kind, alarmClass: alarmClass,
        occurredAt: occurredAt, mowerName: mowerName as? String, reason: reason as? String))
  }
}
