import Events
import Foundation
import Infrastructure
import Testing

@testable import FanoutWorker

/// The ingress payload is read by the toolchain's `JSONDecoder` (`WireCoding`), which checks
/// a string, a number or a comma only where it reads one: these hold the contract's verdicts
/// (docs/interfaces.md#ingress-alarm) where the decoder alone would differ.
@Suite struct IngressAlarmHostileJSONTests {
  static let eventID = "7d7c3b0e-1111-4222-8333-444455556666"

  /// A payload with a name to show for it.
  struct Flawed: Sendable, CustomTestStringConvertible {
    let name: String
    let payload: [UInt8]
    init(_ name: String, _ payload: [UInt8]) {
      self.name = name
      self.payload = payload
    }
    var testDescription: String { name }
  }

  /// A valid alarm of mower m-1, with `extra` members at its end.
  static func alarm(
    eventID: String = "\"\(eventID)\"", kind: String = "\"mower_stuck\"",
    name: String = "\"Robbie\"", extra: String = ""
  ) -> [UInt8] {
    Array(
      """
      {"event_id": \(eventID), "mower_id": "m-1", "kind": \(kind), \
      "occurred_at": "2026-11-29T10:15:00Z", "mower_name": \(name)\(extra)}
      """.utf8)
  }

  /// `payload` with each `@` replaced by `bytes`: for bytes no Swift string holds.
  static func replacing(_ payload: [UInt8], with bytes: [UInt8]) -> [UInt8] {
    payload.flatMap { $0 == UInt8(ascii: "@") ? bytes : [$0] }
  }

  static func parse(_ payload: [UInt8]) -> Result<IngressAlarm, IngressAlarm.Rejection> {
    IngressAlarm.parse(
      subject: "notifications.alarms.m-1", subjects: Subjects(prefix: ""), payload: payload)
  }

  /// Each is a valid alarm but for one flaw in a field the fan-out does not read, or in
  /// the text as a whole.
  static let flawedOutsideTheFields: [Flawed] = [
    Flawed("a lone surrogate", alarm(extra: #", "x": "\ud800""#)),
    Flawed("a lone low surrogate", alarm(extra: #", "x": "\udc00x""#)),
    Flawed("invalid UTF-8", replacing(alarm(extra: #", "x": "Rob@""#), with: [0xC3, 0x28])),
    Flawed("a UTF-8 surrogate", replacing(alarm(extra: #", "x": "@""#), with: [0xED, 0xA0, 0x80])),
    Flawed("a raw tab", alarm(extra: ", \"x\": \"a\tb\"")),
    Flawed("an unknown escape", alarm(extra: #", "x": "\x41""#)),
    Flawed("a number 01", alarm(extra: #", "x": 01"#)),
    Flawed("a number 1.", alarm(extra: #", "x": 1."#)),
    Flawed("a number 1e999", alarm(extra: #", "x": 1e999"#)),
    Flawed("a trailing comma in an array", alarm(extra: #", "x": [1,]"#)),
    Flawed("a trailing comma", alarm(extra: ",")),
    Flawed("UTF-16", [0xFF, 0xFE] + alarm().flatMap { [$0, 0] }),
  ]

  /// The decoder's own verdict, which is why `IngressPayload.read` checks the bytes first.
  /// Should a later toolchain refuse these itself, this fails: the check stays right, and
  /// its notes can say so.
  @Test(arguments: flawedOutsideTheFields)
  func jsonDecoderAloneTakesThem(flawed: Flawed) throws {
    struct Kind: Decodable { let kind: String }
    #expect(try WireCoding.decode(Kind.self, from: flawed.payload).kind == "mower_stuck")
  }

  @Test(arguments: flawedOutsideTheFields)
  func theyAreInvalidJSON(flawed: Flawed) {
    #expect(throws: IngressAlarm.Rejection.invalidJSON) { try Self.parse(flawed.payload).get() }
    #expect(IngressAlarm.eventIDIfAny(in: flawed.payload) == nil)
  }

  /// In a field the fan-out reads, the decoder throws for them, but not as a type mismatch:
  /// they stay `invalid_json`, not `invalid_mower_name` or `invalid_kind`.
  @Test func aBrokenStringInAContractFieldIsInvalidJSON() throws {
    let broken: [[UInt8]] = [
      Self.alarm(name: #""\ud800""#), Self.alarm(name: #""\udc00""#),
      Self.alarm(kind: #""\ud800""#), Self.alarm(name: "\"a\tb\""),
      Self.replacing(Self.alarm(name: #""Rob@""#), with: [0xC3, 0x28]),
    ]
    for payload in broken {
      #expect(throws: IngressAlarm.Rejection.invalidJSON) { try Self.parse(payload).get() }
    }
    #expect(try Self.parse(Self.alarm(name: #""\ud83d\ude9c""#)).get().mowerName == "🚜")
  }

  /// A field given twice: `JSONDecoder` keeps the first. The hand-written parser used
  /// before (and Foundation's `JSONSerialization`) kept the last, so this one payload is
  /// read differently from before. RFC 8259 leaves it open (names SHOULD be unique), no
  /// producer repeats a field, and the fan-out reads every field from the one decoding.
  @Test func aRepeatedFieldKeepsItsFirstValue() throws {
    let twice = Self.alarm(kind: #""mower_lifted", "kind": "battery_low""#)
    #expect(try Self.parse(twice).get().kind == "mower_lifted")
    let unknownFirst = Self.alarm(kind: #""mower_exploded", "kind": "battery_low""#)
    #expect(throws: IngressAlarm.Rejection.unknownKind) { try Self.parse(unknownFirst).get() }
  }

  /// Numbers are never read as numbers: any one where a string is due is that field's
  /// `invalid_*`, as long as it is a number JSON can hold (a finite `Double`).
  @Test func hugeNumbers() throws {
    let big = "123456789012345678901234567890"
    #expect(throws: IngressAlarm.Rejection.invalidEventID) {
      try Self.parse(Self.alarm(eventID: big)).get()
    }
    #expect(throws: IngressAlarm.Rejection.invalidJSON) {
      try Self.parse(Self.alarm(eventID: "1e999")).get()
    }
    #expect(throws: IngressAlarm.Rejection.invalidMowerName) {
      try Self.parse(Self.alarm(name: "-" + String(repeating: "9", count: 300))).get()
    }
    #expect(
      try Self.parse(Self.alarm(extra: #", "x": 1e-400, "y": \#(big)"#)).get().kind == "mower_stuck"
    )
  }

  @Test func aRequiredFieldThatIsNullIsInvalidNotMissing() {
    let cases: [(String, IngressAlarm.Rejection)] = [
      (#"{"event_id": null}"#, .invalidEventID),
      (#"{"event_id": "\#(Self.eventID)", "mower_id": null}"#, .invalidMowerID),
      (#"{"event_id": "\#(Self.eventID)", "mower_id": "m-1", "kind": null}"#, .invalidKind),
      (
        #"{"event_id": "\#(Self.eventID)", "mower_id": "m-1", "kind": "battery_low", "occurred_at": null}"#,
        .invalidOccurredAt
      ),
      (#"{"event_id": "\#(Self.eventID)", "mower_id": 4711}"#, .invalidMowerID),
      (
        #"{"event_id": "\#(Self.eventID)", "mower_id": "m-1", "kind": "battery_low", "occurred_at": 1790000000}"#,
        .invalidOccurredAt
      ),
      (#"{"event_id": "\#(Self.eventID)", "mower_id": "m-1", "kind": false}"#, .invalidKind),
      (#"{"event_id": {"id": "\#(Self.eventID)"}}"#, .invalidEventID),
    ]
    for (payload, reason) in cases {
      #expect(throws: reason, "\(payload)") { try Self.parse(Array(payload.utf8)).get() }
    }
  }

  @Test func optionalFieldsThatAreNullAreAbsent() throws {
    let alarm = try Self.parse(Self.alarm(name: "null", extra: #", "reason": null"#)).get()
    #expect(alarm.mowerName == nil && alarm.reason == nil)
  }

  @Test func aByteOrderMarkIsSkipped() throws {
    #expect(try Self.parse([0xEF, 0xBB, 0xBF] + Self.alarm()).get().mowerName == "Robbie")
  }

  /// The id that correlates a rejection comes from the same reading as the checks.
  @Test func theEventIDOfARejectedPayload() {
    let id = UUID(uuidString: Self.eventID)
    #expect(IngressAlarm.eventIDIfAny(in: Self.alarm(kind: "7")) == id)
    #expect(IngressAlarm.eventIDIfAny(in: Self.alarm(name: "[]")) == id)
    #expect(IngressAlarm.eventIDIfAny(in: Array(#"{"event_id": "\#(Self.eventID)"}"#.utf8)) == id)
    #expect(IngressAlarm.eventIDIfAny(in: Self.alarm(eventID: "5")) == nil)
    #expect(IngressAlarm.eventIDIfAny(in: Self.alarm(eventID: "null")) == nil)
    #expect(IngressAlarm.eventIDIfAny(in: Self.alarm(eventID: "\"not-a-uuid\"")) == nil)
    let deep = Self.alarm(extra: ", \"x\": " + String(repeating: "[", count: 40))
    #expect(IngressAlarm.eventIDIfAny(in: deep) == nil)
    let large = Self.alarm(extra: ", \"x\": \"\(String(repeating: "x", count: 70_000))\"")
    #expect(IngressAlarm.eventIDIfAny(in: large) == nil)
  }

  @Test func thirtyThousandLevelsAreTooDeepBeforeAnyDecoder() {
    let closed = String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)
    #expect(throws: IngressAlarm.Rejection.nestedTooDeep) {
      try Self.parse(Array(closed.utf8)).get()
    }
    #expect(throws: IngressAlarm.Rejection.nestedTooDeep) {
      try Self.parse(Self.alarm(extra: ", \"x\": " + String(repeating: "[", count: 50_000))).get()
    }
  }
}
