// libFuzzer entry for the alarm parser at ingress (fuzz/run.sh alarm).
//
// Built by swiftc together with the very source files the fan-out uses:
// Sources/FanoutWorker/IngressAlarm.swift, IngressPayload.swift, IngressField.swift, the
// alarm catalogue and, from Sources/Infrastructure, the JSON check (JSONValidator.swift),
// WireCoding (the toolchain's JSONDecoder, which is not instrumented: coverage guides the
// fuzzer up to it, not inside it), Timestamp, CleanText and Subjects; and the hand-written
// JSON parser, as the reference below. Each input is a subject, a newline and a payload
// (no newline: the whole input is the payload of a fixed subject).
// Besides "does not crash or trip AddressSanitizer" (a 4,096-deep `[[[` included: nothing
// may recurse without a bound), it checks what docs/interfaces.md#ingress-alarm says must
// hold for any input:
//   - a payload is refused as `invalid_json` or `nested_too_deep` exactly when the
//     hand-written parser (JSONParser, held to RFC 8259 by JSONParserTests) cannot read it
//     as an object 32 levels deep at most: JSONDecoder alone would let more through;
//   - an accepted alarm's mower id is the subject's last token, a valid subject token;
//   - its kind is in the catalogue, its occurred_at a real date, not before 1970, whose
//     text names a real calendar day (checked here independently of Timestamp);
//   - mower_name is at most 64 characters, reason at most 128 (Unicode scalars, as
//     PostgreSQL counts them), neither empty nor holding a control character (U+0000 to
//     U+001F, U+007F);
//   - an accepted payload is at most 64 KiB and nests at most 32 levels.
// The time bound is libFuzzer's -timeout (run.sh passes -timeout=10). Inputs longer than
// -max_len never reach the loop, so the boundaries past it (64 KiB, 50,000 levels) are
// checked once, at start, by `boundaryChecks`.
import FoundationEssentials
import Glibc

private let subjects = Subjects()
private let fallbackSubject = "notifications.alarms.m-1"

/// Counts printed at exit: run.sh fails when no input was accepted (the seeds are then
/// wrong and the run proved little) or when a boundary check failed.
nonisolated(unsafe) private var accepted = 0  // libFuzzer runs inputs on one thread
nonisolated(unsafe) private var rejected: [IngressAlarm.Rejection: Int] = [:]
nonisolated(unsafe) private var boundaryFailures = 0
/// Accepted instants after 9999-12-31T23:59:59Z (see `checkAccepted`); reported.
nonisolated(unsafe) private var pastYear9999 = 0

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
  atexit {
    let reasons = rejected.sorted { $0.key.rawValue < $1.key.rawValue }
      .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
    print("alarm-fuzz: accepted \(accepted) inputs; rejected: \(reasons)")
    print("alarm-fuzz: accepted instants past year 9999: \(pastYear9999)")
    print("alarm-fuzz: boundary checks failed: \(boundaryFailures)")
  }
  boundaryChecks()
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = UnsafeBufferPointer(start: data, count: size)
  let subject: String
  let payload: [UInt8]
  if let newline = input.firstIndex(of: 0x0A) {
    subject = String(decoding: input[..<newline], as: UTF8.self)
    payload = Array(input[(newline + 1)...])
  } else {
    subject = fallbackSubject
    payload = Array(input)
  }
  check(subject: subject, payload: payload)
  return 0
}

private func check(subject: String, payload: [UInt8]) {
  let result = IngressAlarm.parse(subject: subject, subjects: subjects, payload: payload)
  checkJSONVerdict(result, payload: payload)
  switch result {
  case .failure(let rejection):
    rejected[rejection, default: 0] += 1
  case .success(let alarm):
    accepted += 1
    checkAccepted(alarm, subject: subject, payload: payload)
  }
}

/// Refused as no JSON (or too deep) exactly when the reference parser reads no object.
private func checkJSONVerdict(
  _ result: Result<IngressAlarm, IngressAlarm.Rejection>, payload: [UInt8]
) {
  guard payload.count <= 64 * 1024 else { return }
  let refusedAsJSON: Bool
  switch result {
  case .failure(.invalidJSON), .failure(.nestedTooDeep): refusedAsJSON = true
  default: refusedAsJSON = false
  }
  let readable = JSON.object(from: payload, maximumDepth: 32) != nil
  precondition(
    readable != refusedAsJSON,
    "\(result) for a payload the reference parser \(readable ? "reads" : "refuses"): "
      + String(decoding: payload.prefix(300), as: UTF8.self).debugDescription)
}

/// The field the fan-out read the time from: JSONDecoder's reading, in which the first of
/// a repeated field counts (the reference parser keeps the last).
private struct OccurredAt: Decodable {
  let occurredAt: String
  enum CodingKeys: String, CodingKey { case occurredAt = "occurred_at" }
}

private func checkAccepted(_ alarm: IngressAlarm, subject: String, payload: [UInt8]) {
  precondition(payload.count <= 64 * 1024, "accepted a payload over 64 KiB")
  precondition(nesting(of: payload) <= 32, "accepted a payload nested deeper than 32")
  precondition(
    subject.hasPrefix("notifications.alarms.")
      && subject.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init)
        == alarm.mowerID,
    "mower id \(alarm.mowerID.debugDescription) is not the last token of \(subject.debugDescription)"
  )
  precondition(
    !alarm.mowerID.isEmpty
      && alarm.mowerID.unicodeScalars.allSatisfy {
        $0.value > 0x20 && $0.value != 0x7F && !".*>".unicodeScalars.contains($0)
      }, "mower id is not one subject token: \(alarm.mowerID.debugDescription)")
  precondition(AlarmCatalogue.alarmClass(of: alarm.kind) == alarm.alarmClass)
  precondition(alarm.occurredAt.timeIntervalSince1970 >= 0, "occurred_at before 1970")
  guard let text = try? WireCoding.decode(OccurredAt.self, from: payload).occurredAt else {
    preconditionFailure("accepted a payload whose occurred_at JSONDecoder does not read back")
  }
  precondition(namesRealDay(text), "accepted occurred_at \(text.debugDescription)")
  // The instant survives being written as the event log and PostgresBind write it; past
  // year 9999 (9999-12-31T23:59:59-01:00 is one) Timestamp.format writes five digits,
  // which Timestamp.parse refuses: counted and reported, not an invariant of the parser.
  guard alarm.occurredAt.timeIntervalSince1970 < 253_402_300_800 else {
    pastYear9999 += 1
    return checkTexts(alarm)
  }
  let formatted = Timestamp.format(alarm.occurredAt)
  guard let again = Timestamp.parse(formatted) else {
    preconditionFailure("Timestamp.format wrote \(formatted), which it cannot read")
  }
  precondition(abs(again.timeIntervalSince1970 - alarm.occurredAt.timeIntervalSince1970) < 0.001)
  checkTexts(alarm)
}

private func checkTexts(_ alarm: IngressAlarm) {
  checkText(alarm.mowerName, limit: 64, field: "mower_name")
  checkText(alarm.reason, limit: 128, field: "reason")
}

private func checkText(_ text: String?, limit: Int, field: String) {
  guard let text else { return }
  precondition(!text.isEmpty, "\(field) kept as an empty text")
  // Characters counted as PostgreSQL counts them, in Unicode scalars: a limit in Swift
  // `Character`s would bound nothing (one can hold any number of combining marks).
  let length = text.unicodeScalars.count
  precondition(length <= limit, "\(field) of \(length) Unicode scalars kept")
  precondition(
    text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F },
    "\(field) keeps a control character: \(text.debugDescription)")
}

/// Levels of arrays and objects, counted on text the JSON parser accepted, so brackets
/// inside strings are the only ones to skip.
private func nesting(of payload: [UInt8]) -> Int {
  var depth = 0
  var deepest = 0
  var inString = false
  var escaped = false
  for byte in payload {
    if inString {
      if escaped {
        escaped = false
      } else if byte == 0x5C {
        escaped = true
      } else if byte == 0x22 {
        inString = false
      }
      continue
    }
    switch byte {
    case 0x22: inString = true
    case 0x5B, 0x7B:
      depth += 1
      deepest = max(deepest, depth)
    case 0x5D, 0x7D: depth -= 1
    default: break
    }
  }
  return deepest
}

/// `YYYY-MM-DD` at the start of `text` is a day of the Gregorian calendar, year 1970 or
/// later less one (an offset may carry 1970-01-01T00:30+01:00 back), written apart from
/// Timestamp on purpose.
private func namesRealDay(_ text: String) -> Bool {
  let digits = Array(text.utf8.prefix(10))
  guard digits.count == 10, digits[4] == 0x2D, digits[7] == 0x2D else { return false }
  func number(_ range: Range<Int>) -> Int? {
    var value = 0
    for index in range {
      guard (0x30...0x39).contains(digits[index]) else { return nil }
      value = value * 10 + Int(digits[index] - 0x30)
    }
    return value
  }
  guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else {
    return false
  }
  let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
  let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
  return year >= 1969 && (1...12).contains(month) && (1...lengths[month - 1]).contains(day)
}

// MARK: - Boundaries past -max_len, checked once at start

private let eventID = "7d7c3b0e-1234-4a5b-8c9d-0123456789ab"

private func alarmJSON(
  occurredAt: String = "2026-11-29T10:15:00Z", name: String = "\"Robbie\"",
  reason: String = "\"trapped\"", extra: String = ""
) -> String {
  "{\"event_id\": \"\(eventID)\", \"mower_id\": \"m-4711\", \"kind\": \"mower_lifted\", "
    + "\"occurred_at\": \"\(occurredAt)\", \"mower_name\": \(name), \"reason\": \(reason)\(extra)}"
}

private func parse(_ payload: [UInt8]) -> Result<IngressAlarm, IngressAlarm.Rejection> {
  IngressAlarm.parse(subject: "notifications.alarms.m-4711", subjects: subjects, payload: payload)
}

private func expect(
  _ name: String, _ payload: [UInt8], _ verdict: IngressAlarm.Rejection?,
  then checkAlarm: (IngressAlarm) -> Bool = { _ in true }
) {
  let result = parse(payload)
  let good: Bool
  switch (result, verdict) {
  case (.success(let alarm), nil):
    good = checkAlarm(alarm)
    checkAccepted(alarm, subject: "notifications.alarms.m-4711", payload: payload)
  case (.failure(let rejection), let expected?): good = rejection == expected
  default: good = false
  }
  if !good {
    boundaryFailures += 1
    let shown = String(decoding: payload.prefix(200), as: UTF8.self)
    print("alarm-fuzz: BOUNDARY FAILED \(name): got \(result), \(payload.count) bytes: \(shown)")
  }
}

private func expect(
  _ name: String, _ payload: String, _ verdict: IngressAlarm.Rejection?,
  then checkAlarm: (IngressAlarm) -> Bool = { _ in true }
) {
  expect(name, Array(payload.utf8), verdict, then: checkAlarm)
}

private func boundaryChecks() {
  let base = Array(alarmJSON().utf8)
  let limit = 64 * 1024
  expect("64 KiB exactly", base + Array(repeating: 0x20, count: limit - base.count), nil)
  expect(
    "64 KiB + 1", base + Array(repeating: 0x20, count: limit + 1 - base.count), .payloadTooLarge)
  expect("1 MiB of [", Array(repeating: 0x5B, count: 1 << 20), .payloadTooLarge)
  expect("50,000 [", Array(repeating: 0x5B, count: 50_000), .nestedTooDeep)
  func closed(_ levels: Int) -> String {
    String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
  }
  expect("40,000 [ closed", closed(40_000), .payloadTooLarge)
  expect("30,000 [ closed", closed(30_000), .nestedTooDeep)
  expect("13,000 {\"a\":", String(repeating: "{\"a\":", count: 13_000), .nestedTooDeep)
  expect(
    "50,000 [ in a field", alarmJSON(extra: ", \"x\": " + String(repeating: "[", count: 50_000)),
    .nestedTooDeep)
  // The alarm object is the first level: 31 more are allowed, 32 more are not.
  func nested(_ levels: Int) -> String { alarmJSON(extra: ", \"x\": " + closed(levels)) }
  expect("depth 32", nested(31), nil)
  expect("depth 33", nested(32), .nestedTooDeep)
  expect(
    "[ inside strings", alarmJSON(reason: "\"" + String(repeating: "[", count: 5_000) + "\""), nil)

  expect("year 0000", alarmJSON(occurredAt: "0000-06-01T00:00:00Z"), .invalidOccurredAt)
  expect("30 February", alarmJSON(occurredAt: "2026-02-30T10:00:00Z"), .invalidOccurredAt)
  expect("29 February 2023", alarmJSON(occurredAt: "2023-02-29T10:00:00Z"), .invalidOccurredAt)
  expect("29 February 2024", alarmJSON(occurredAt: "2024-02-29T10:00:00Z"), nil)
  expect("29 February 1900", alarmJSON(occurredAt: "1900-02-29T10:00:00Z"), .invalidOccurredAt)
  expect("31 April", alarmJSON(occurredAt: "2026-04-31T10:00:00Z"), .invalidOccurredAt)
  expect("month 13", alarmJSON(occurredAt: "2026-13-01T10:00:00Z"), .invalidOccurredAt)
  expect("hour 24", alarmJSON(occurredAt: "2026-11-29T24:00:00Z"), .invalidOccurredAt)
  expect("1969", alarmJSON(occurredAt: "1969-12-31T23:59:59Z"), .invalidOccurredAt)
  expect("1970 by offset", alarmJSON(occurredAt: "1970-01-01T00:30:00+01:00"), .invalidOccurredAt)
  expect("epoch", alarmJSON(occurredAt: "1970-01-01T00:00:00Z"), nil)
  expect("year 9999", alarmJSON(occurredAt: "9999-12-31T23:59:59.999999Z"), nil)
  expect("no zone", alarmJSON(occurredAt: "2026-11-29T10:15:00"), .invalidOccurredAt)

  expect(
    "NUL in name", alarmJSON(name: "\"Rob\\u0000bie\"", reason: "\"\\u0000\\u001f\\u007f\""), nil
  ) {
    $0.mowerName == "Robbie" && $0.reason == nil
  }
  expect("name of 100", alarmJSON(name: "\"" + String(repeating: "n", count: 100) + "\""), nil) {
    $0.mowerName == String(repeating: "n", count: 64)
  }
  expect("reason of 300", alarmJSON(reason: "\"" + String(repeating: "é", count: 300) + "\""), nil)
  {
    $0.reason == String(repeating: "é", count: 128)
  }
  expect("null name", alarmJSON(name: "null", reason: "null"), nil) {
    $0.mowerName == nil && $0.reason == nil
  }
  expect("number name", alarmJSON(name: "12"), .invalidMowerName)
  expect("lone high surrogate", alarmJSON(name: "\"\\ud800\""), .invalidJSON)
  expect("lone low surrogate", alarmJSON(name: "\"\\udc00x\""), .invalidJSON)
  expect("surrogate pair", alarmJSON(name: "\"\\ud83d\\ude9c\""), nil) { $0.mowerName == "🚜" }
  expect("raw tab in a string", alarmJSON(name: "\"a\tb\""), .invalidJSON)
  var invalidUTF8 = Array(alarmJSON(name: "\"ab\"").utf8)
  invalidUTF8[invalidUTF8.firstIndex(of: UInt8(ascii: "a"))!] = 0xC3  // a lead byte, no trail
  expect("invalid UTF-8", invalidUTF8, .invalidJSON)
  expect(
    "other mower's subject",
    alarmJSON().replacingOccurrences(of: "m-4711", with: "m-4712"), .subjectMismatch)
  // JSONDecoder would take these in a field the fan-out does not read.
  expect("lone surrogate elsewhere", alarmJSON(extra: ", \"x\": \"\\ud800\""), .invalidJSON)
  expect("1e999 elsewhere", alarmJSON(extra: ", \"x\": [1e999]"), .invalidJSON)
  expect("trailing comma", alarmJSON(extra: ","), .invalidJSON)
  expect("not an object", "[1, 2]", .invalidJSON)
  expect("empty", "", .invalidJSON)
}

extension String {
  fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
