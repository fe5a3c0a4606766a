import Foundation
import Infrastructure
import Testing

@Suite struct TimestampTests {
  /// 2026-11-29T10:15:00Z as seconds since 1970 (checked with `date -u -d ... +%s`).
  static let reference: TimeInterval = 1_795_947_300

  @Test func formatsWholeSecondsWithoutFraction() {
    #expect(Timestamp.format(Date(timeIntervalSince1970: Self.reference)) == "2026-11-29T10:15:00Z")
  }

  @Test func formatsMicroseconds() {
    let date = Date(timeIntervalSince1970: Self.reference + 0.000_123)
    #expect(Timestamp.format(date) == "2026-11-29T10:15:00.000123Z")
  }

  @Test func formatsTheEpochAndDatesBeforeIt() {
    #expect(Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    #expect(Timestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500000Z")
  }

  @Test(arguments: [
    ("2026-11-29T10:15:00Z", reference),
    ("2026-11-29t10:15:00z", reference),
    ("2026-11-29T12:15:00+02:00", reference),
    ("2026-11-29T08:45:00-01:30", reference),
    ("2026-11-29T10:15:00+00", reference),
    ("2026-11-29T10:15:00.5Z", reference + 0.5),
    ("2026-11-29T10:15:00.123456Z", reference + 0.123_456),
    ("2026-11-29 10:15:00.123456+00", reference + 0.123_456),
    ("2026-11-29 15:45:00+05:30", reference),
    ("2024-02-29T00:00:00Z", 1_709_164_800),
    ("2000-02-29T00:00:00Z", 951_782_400),
    ("1970-01-01T00:00:00Z", 0),
  ])
  func parses(text: String, expected: TimeInterval) throws {
    let date = try #require(Timestamp.parse(text))
    #expect(abs(date.timeIntervalSince1970 - expected) < 0.000_000_5, "\(text)")
  }

  @Test(arguments: [
    "",
    "yesterday",
    "2026-02-30T00:00:00Z",
    "2025-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-00-10T00:00:00Z",
    "2026-11-00T00:00:00Z",
    "2026-11-29T24:00:00Z",
    "2026-11-29T23:60:00Z",
    "2026-11-29T23:59:60Z",
    "2026-11-29T10:15:00",
    "2026-11-29",
    "2026-11-29T10:15Z",
    "2026-11-29T10:15:00ZZ",
    "2026-11-29T10:15:00Z ",
    "2026-11-29T10:15:00Zjunk",
    "2026-11-29T10:15:00+02:00junk",
    "2026-11-29T10:15:00.Z",
    "2026-11-29T10:15:00+24:00",
    "2026-11-29T10:15:00+02:60",
    "2026-11-29T10:15:00+2",
    "2026-11-29T10:15:00+02:3",
    "2026-11-29X10:15:00Z",
    "26-11-29T10:15:00Z",
    "2026/11/29T10:15:00Z",
    "+026-11-29T10:15:00Z",
    "２０２６-11-29T10:15:00Z",
  ])
  func rejects(text: String) {
    #expect(Timestamp.parse(text) == nil, "\(text.debugDescription) should not parse")
  }

  @Test(arguments: [
    "2026-11-29T10:15:00Z",
    "2026-11-29T10:15:00.000001Z",
    "2026-11-29T10:15:00.999999Z",
    "2026-11-29T10:15:00.100000Z",
    "1999-12-31T23:59:59.999999Z",
    "2024-02-29T12:00:00Z",
    "2100-03-01T00:00:00Z",
    "1969-07-20T20:17:40Z",
  ])
  func roundTripsItsOwnFormat(text: String) throws {
    let date = try #require(Timestamp.parse(text))
    #expect(Timestamp.format(date) == text)
  }

  @Test func roundTripsDatesAtMicrosecondPrecision() throws {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<1_000 {
      let micros = Int64.random(
        in: -1_000_000_000_000_000...3_000_000_000_000_000, using: &generator)
      let date = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
      let text = Timestamp.format(date)
      let parsed = try #require(Timestamp.parse(text), "\(text)")
      #expect(Timestamp.format(parsed) == text)
      #expect(abs(parsed.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
    }
  }

  @Test func agreesWithFoundationsISO8601Formatter() throws {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    for seconds in stride(from: -1_000_000_000.0, to: 4_000_000_000.0, by: 86_400.0 * 37 + 3_671) {
      let date = Date(timeIntervalSince1970: seconds)
      #expect(Timestamp.format(date) == formatter.string(from: date))
      let parsed = try #require(Timestamp.parse(formatter.string(from: date)))
      #expect(parsed == date)
    }
  }

  /// RFC 3339 (and the doc comment, `±HH[:MM]`) require a colon in the offset. `-0130` is
  /// ISO 8601's basic form; if the parser takes it, it must at least read it as -01:30.
  @Test func readsAnOffsetWithoutColonAsHoursAndMinutes() {
    if let date = Timestamp.parse("2026-11-29T08:45:00-0130") {
      #expect(date.timeIntervalSince1970 == Self.reference)
    }
  }
}
