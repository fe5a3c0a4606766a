import Foundation
import Infrastructure
import TestSupport
import Testing

/// `JSON.value(from:)` replaced Foundation's `JSONSerialization` in the workers (ADR 0021):
/// it must accept and refuse what `JSONSerialization` does, and read the same values.
@Suite struct JSONParserTests {
  static let valid: [String] = [
    "{}", "[]", " { } ", "\n[\t1 ,\r2 ]\n", #"{"a":1}"#, #"{"a":{"b":[{"c":null}]}}"#,
    #"[1, 2.5, -3e2, 1E+2, 0.5e-1, -0, true, false, null, "x"]"#, "12345678901234567890",
    "42", #""text""#, "true", "null", #""\u00e9\n\t\"\\\/\b\f\r""#, #""\ud83d\ude00""#,
    "\"caf\u{e9} \u{1F600}\"", #"{"a":1,"a":2}"#, "\u{FEFF}{\"bom\":true}", "1e-400",
    String(repeating: "[", count: 500) + String(repeating: "]", count: 500),
  ]

  static let invalid: [String] = [
    "", " ", "{", "}", #"{"a"}"#, #"{"a":}"#, "01", "1.", ".5", "+1",
    "--1", "1e", "1e+", "-", #""\x""#, #""\u12""#, #""\u12G4""#, "\"a\u{01}b\"", "tru", "nul",
    "[1 2]", #"{"a" 1}"#, "{1:2}", #""abc"#, "{} x", "[] []", "NaN", "Infinity", "'a'",
    #"{"a":1 "b":2}"#, "[,1]", "1e999",
  ]

  @Test(arguments: valid)
  func acceptsWhatJSONSerializationAcceptsAndReadsTheSameValues(text: String) throws {
    let theirs = try #require(
      try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed))
    let ours = try #require(JSON.value(from: Array(text.utf8)))
    #expect(Self.canonical(ours) == Self.canonical(theirs))
  }

  /// One text for a value of ours, to compare with `JSONSerialization`'s: numbers as
  /// Doubles, keys sorted.
  static func canonical(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): return "s:" + text
    case .null: return "null"
    case .array(let array): return "[" + array.map(canonical).joined(separator: ",") + "]"
    case .object(let object):
      return "{"
        + object.keys.sorted().map { "\($0):" + canonical(object[$0]!) }.joined(separator: ",")
        + "}"
    case .bool(let flag): return "b:\(flag)"
    case .integer(let integer): return "n:\(Double(integer))"
    case .number(let double): return "n:\(double)"
    }
  }

  /// The same text for a value `JSONSerialization` read: booleans told apart from numbers
  /// (Foundation gives both as NSNumber).
  static func canonical(_ value: Any) -> String {
    switch value {
    case let text as String: return "s:" + text
    case is NSNull: return "null"
    case let array as [Any]: return "[" + array.map(canonical).joined(separator: ",") + "]"
    case let object as [String: Any]:
      return "{"
        + object.keys.sorted().map { "\($0):" + canonical(object[$0]!) }.joined(separator: ",")
        + "}"
    case let flag as Bool where String(describing: type(of: value)).contains("Bool"):
      return "b:\(flag)"
    case let number as NSNumber: return "n:\(number.doubleValue)"
    case let integer as Int: return "n:\(Double(integer))"
    case let double as Double: return "n:\(double)"
    default: return "?\(type(of: value))"
    }
  }

  @Test(arguments: invalid)
  func refusesWhatJSONSerializationRefuses(text: String) {
    #expect(
      (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed))
        == nil)
    #expect(JSON.value(from: Array(text.utf8)) == nil)
  }

  /// Foundation's `JSONSerialization` lets a trailing comma through; RFC 8259 has none.
  @Test(arguments: ["[1,]", #"{"a":1,}"#])
  func refusesATrailingComma(text: String) {
    #expect(JSON.value(from: Array(text.utf8)) == nil)
  }

  @Test func refusesWhatIsNotUTF8() {
    #expect(JSON.value(from: [0x22, 0xFF, 0x22]) == nil)
    #expect(JSON.value(from: [0x22, 0xC3, 0x22]) == nil)
  }

  @Test func refusesALoneSurrogate() {
    #expect(JSON.value(from: Array(#""\ud800""#.utf8)) == nil)
    #expect(JSON.value(from: Array(#""\udc00x""#.utf8)) == nil)
  }

  @Test func refusesNestingDeeperThanItsLimit() {
    let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
    #expect(JSON.value(from: Array(deep.utf8)) == nil)
  }

  /// `JSONSerialization` would detect and decode UTF-16; JSON between systems is UTF-8
  /// (RFC 8259 section 8.1), and every producer of ours writes UTF-8.
  @Test func refusesUTF16() {
    let utf16 = Array(#"{"a":1}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    #expect(JSON.value(from: [0xFF, 0xFE] + utf16) == nil)
  }

  @Test func readsEachKindOfValueAsItsSwiftType() throws {
    let text =
      #"{"s":"a\"b\u00e9\ud83d\ude00","i":-12,"d":2.5,"e":1e2,"t":true,"f":false,"#
      + #""n":null,"a":[1,"x"],"o":{"k":0},"big":12345678901234567890}"#
    let object = try #require(JSON.object(from: Array(text.utf8)))
    #expect(object["s"] == .string("a\"b\u{e9}\u{1F600}"))
    #expect(object["i"] == .integer(-12))
    #expect(object["d"] == .number(2.5))
    #expect(object["e"] == .number(100))
    #expect(object["t"] == .bool(true))
    #expect(object["f"] == .bool(false))
    #expect(object["n"] == .null)
    #expect(object["a"] == .array([.integer(1), .string("x")]))
    #expect(object["o"] == .object(["k": .integer(0)]))
    #expect(object["big"] == .number(Double("12345678901234567890")!))
    #expect(object.count == 10)
  }

  @Test func aRepeatedKeyKeepsTheLastValue() throws {
    let object = try #require(JSON.object(from: Array(#"{"a":1,"a":2}"#.utf8)))
    #expect(object["a"] == .integer(2))
  }

  @Test func numbersReadAsIntegersOrDoublesEitherWay() throws {
    let object = try #require(JSON.object(from: Array(#"{"i":3,"d":3.0,"f":3.5}"#.utf8)))
    #expect(object["i"]?.integer == 3)
    #expect(object["d"]?.integer == 3)
    #expect(object["f"]?.integer == nil)
    #expect(object["i"]?.number == 3)
    #expect(object["f"]?.number == 3.5)
    #expect(object["missing"]?.integer == nil)
  }

  @Test func whatItReadsEncodesBackToTheSameText() throws {
    let text = #"{"a":[1,2.5,true,null,"x\n"],"b":{"c":"d"},"e":false}"#
    let object = try #require(JSON.object(from: Array(text.utf8)))
    #expect(JSON.encode(object) == text)
  }

  /// Every recorded alarm payload reads the same through both parsers.
  @Test func readsEveryRecordedAlarmAsJSONSerializationDoes() throws {
    let lines = try String(
      contentsOfFile: TestServers.fixture("fleet40.alarms.jsonl"), encoding: .utf8
    )
    .split(separator: "\n")
    #expect(lines.count > 1000)
    for line in lines {
      let record = try #require(JSON.object(from: Array(line.utf8)))
      let payload = try #require(record["payload"]?.string)
      let ours = JSON.object(from: Array(payload.utf8))
      let theirs =
        (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any]
      #expect((ours == nil) == (theirs == nil), "\(payload)")
      guard let ours, let theirs else { continue }
      #expect(Self.canonical(JSONValue.object(ours)) == Self.canonical(theirs))
    }
  }
}
