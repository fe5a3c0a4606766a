import Events
import FoundationEssentials
import Infrastructure

/// An alarm as published on `notifications.alarms.<mower_id>` (docs/interfaces.md#ingress-alarm),
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
    case payloadTooLarge = "payload_too_large"
    case nestedTooDeep = "nested_too_deep"
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

  /// The contract's limits on hostile input (docs/interfaces.md#ingress-alarm, its limits).
  enum Limits {
    static let payloadBytes = 64 * 1024
    /// Levels of arrays and objects, the alarm object itself being the first.
    static let nestingDepth = 32
    static let mowerNameCharacters = 64
    static let reasonCharacters = 128
    static let mowerIDCharacters = 200
    /// No real alarm happened before this: earlier instants are a firmware's clock unset.
    static let earliestOccurredAt = Date(timeIntervalSince1970: 0)
    /// The last instant a four-digit year holds (9999-12-31T23:59:59Z). RFC 3339 offsets can
    /// name a later one (`9999-12-31T23:59:59-23:59`); it is kept as this, which is in the
    /// future anyway and decided on the receive time, so that it reads back everywhere.
    static let latestOccurredAt = Date(timeIntervalSince1970: 253_402_300_799)
  }

  /// The event id a rejected payload still carries, if any, to correlate its rejection.
  static func eventIDIfAny(in payload: [UInt8]) -> UUID? {
    guard case .success(let fields) = IngressPayload.read(payload) else { return nil }
    return fields.eventID?.text.flatMap(UUID.init(uuidString:))
  }

  /// Checks a payload in the order the contract's examples imply: size and nesting, JSON,
  /// event id, mower, kind, time, optional fields. Names and reasons are cleaned and cut,
  /// not refused: the alarm still matters when its text is odd.
  static func parse(subject: String, subjects: Subjects, payload: [UInt8]) -> Result<
    IngressAlarm, Rejection
  > {
    let fields: IngressPayload
    switch IngressPayload.read(payload) {
    case .success(let read): fields = read
    case .failure(let rejection): return .failure(rejection)
    }
    guard let rawID = fields.eventID else { return .failure(.missingEventID) }
    guard let eventID = rawID.text.flatMap(UUID.init(uuidString:)) else {
      return .failure(.invalidEventID)
    }
    guard let rawMower = fields.mowerID else { return .failure(.missingMowerID) }
    guard let mowerID = rawMower.text, isValidMowerID(mowerID) else {
      return .failure(.invalidMowerID)
    }
    guard subject == subjects.alarm(mowerID: mowerID) else { return .failure(.subjectMismatch) }
    guard let rawKind = fields.kind else { return .failure(.missingKind) }
    guard let kind = rawKind.text else { return .failure(.invalidKind) }
    guard let alarmClass = AlarmCatalogue.alarmClass(of: kind) else {
      return .failure(.unknownKind)
    }
    guard let rawTime = fields.occurredAt else { return .failure(.missingOccurredAt) }
    guard let occurredAt = rawTime.text.flatMap(Timestamp.parse),
      occurredAt >= Limits.earliestOccurredAt
    else {
      return .failure(.invalidOccurredAt)
    }
    // Optional fields: missing and `null` alike mean none; another JSON type is refused.
    if case .other? = fields.mowerName { return .failure(.invalidMowerName) }
    if case .other? = fields.reason { return .failure(.invalidReason) }
    return .success(
      IngressAlarm(
        eventID: eventID, mowerID: mowerID, kind: kind, alarmClass: alarmClass,
        occurredAt: min(occurredAt, Limits.latestOccurredAt),
        mowerName: cleaned(fields.mowerName?.text, Limits.mowerNameCharacters),
        reason: cleaned(fields.reason?.text, Limits.reasonCharacters)))
  }

  /// A mower id is one NATS subject token: printable, no dots or wildcards, not too long.
  private static func isValidMowerID(_ id: String) -> Bool {
    guard !id.isEmpty, id.count <= Limits.mowerIDCharacters else { return false }
    return id.unicodeScalars.allSatisfy { scalar in
      scalar.value > 0x20 && scalar.value != 0x7F && scalar != "." && scalar != "*"
        && scalar != ">"
    }
  }

  /// Optional text without control characters, cut to `limit`; nil when nothing is left.
  private static func cleaned(_ text: String?, _ limit: Int) -> String? {
    guard let text else { return nil }
    let clean = CleanText.clean(text, maximumCharacters: limit)
    return clean.isEmpty ? nil : clean
  }
}
