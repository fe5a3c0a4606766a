import Foundation
import Infrastructure
import TestSupport
import Testing

/// `JSON.isObject` stands before `JSONDecoder`, which checks a value only where it reads it:
/// on any bytes it must give `JSONParser`'s verdict (`JSON.object(from:maximumDepth:)`).
@Suite struct JSONValidatorTests {
  static func check(_ bytes: [UInt8], depth: Int = 32) -> Bool {
    let verdict = JSON.isObject(bytes, maximumDepth: depth)
    #expect(
      verdict == (JSON.object(from: bytes, maximumDepth: depth) != nil),
      "\(String(decoding: bytes.prefix(120), as: UTF8.self).debugDescription)")
    return verdict
  }

  static func member(_ value: String) -> [UInt8] { Array("{\"a\": \(value)}".utf8) }
  static func member(bytes: [UInt8]) -> [UInt8] { Array("{\"a\": \"".utf8) + bytes + [0x22, 0x7D] }

  @Test(arguments: JSONParserTests.valid + JSONParserTests.invalid)
  func givesTheParsersVerdictOnItsCases(text: String) {
    _ = Self.check(Array(text.utf8), depth: 512)
    _ = Self.check(Self.member(text), depth: 512)
  }

  /// Bytes, whether they are a JSON object, and a name to show for them.
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let valid: Bool
    init(_ name: String, _ bytes: [UInt8], _ valid: Bool) {
      (self.name, self.bytes, self.valid) = (name, bytes, valid)
    }
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case("an object", member("\"x\""), true),
    Case("an empty object", Array(" {} ".utf8), true),
    Case("a byte order mark", [0xEF, 0xBB, 0xBF] + member("1"), true),
    Case("UTF-16", [0xFF, 0xFE] + member("1").flatMap { [$0, 0] }, false),
    Case("UTF-16 without its mark", member("1").flatMap { [0, $0] }, false),
    Case("UTF-32", member("1").flatMap { [$0, 0, 0, 0] }, false),
    Case("a lone high surrogate", member(#""\ud800""#), false),
    Case("two high surrogates", member(#""\ud800\ud800""#), false),
    Case("a lone low surrogate", member(#""\udc00x""#), false),
    Case("a surrogate pair", member(#""\ud83d\ude9c""#), true),
    Case("a lone surrogate in a key", Array(#"{"\ud800": 1}"#.utf8), false),
    Case("an overlong NUL", member(bytes: [0xC0, 0x80]), false),
    Case("an overlong slash", member(bytes: [0xE0, 0x80, 0xAF]), false),
    Case("a surrogate in UTF-8", member(bytes: [0xED, 0xA0, 0x80]), false),
    Case("U+D7FF", member(bytes: [0xED, 0x9F, 0xBF]), true),
    Case("past U+10FFFF", member(bytes: [0xF4, 0x90, 0x80, 0x80]), false),
    Case("U+10FFFF", member(bytes: [0xF4, 0x8F, 0xBF, 0xBF]), true),
    Case("a lead byte F5", member(bytes: [0xF5, 0x80, 0x80, 0x80]), false),
    Case("a cut sequence", member(bytes: [0xE2, 0x82]), false),
    Case("a cut sequence before an escape", member(bytes: [0xC3] + Array(#"\n"#.utf8)), false),
    Case("a stray continuation byte", member(bytes: [0x80]), false),
    Case("a byte FF", member(bytes: [0xFF]), false),
    Case("a raw tab", member(bytes: [0x09]), false),
    Case("a raw NUL", member(bytes: [0x00]), false),
    Case("a raw DEL", member(bytes: [0x7F]), true),
    Case("every escape", member(#""\"\\\/\b\f\n\r\t\u00e9\u0000""#), true),
    Case("an unknown escape", member(#""\x41""#), false),
    Case("a short \\u escape", member(#""\u12""#), false),
    Case("a trailing comma in an object", Array(#"{"a": 1,}"#.utf8), false),
    Case("a trailing comma in an array", member("[1,]"), false),
    Case("a leading comma", member("[,1]"), false),
    Case("1e999", member("1e999"), false),
    Case("-1e999", member("-1e999"), false),
    Case("1e-400", member("1e-400"), true),
    Case("a 19-digit integer past Int", member("9999999999999999999"), true),
    Case("a 300-digit integer", member(String(repeating: "9", count: 300)), true),
    Case("a 400-digit integer", member(String(repeating: "9", count: 400)), false),
    Case("01", member("01"), false),
    Case("1.", member("1."), false),
    Case("-", member("-"), false),
    Case("+1", member("+1"), false),
    Case("-0", member("-0"), true),
    Case("tru", member("tru"), false),
    Case("a form feed for a space", Array("{\u{0C}}".utf8), false),
    Case("an array", Array("[1, 2]".utf8), false),
    Case("a string", Array("\"{}\"".utf8), false),
    Case("text after the object", Array("{} x".utf8), false),
    Case("a second object", Array("{}{}".utf8), false),
    Case("a repeated key", Array(#"{"a": 1, "a": "x"}"#.utf8), true),
    Case("nothing", [], false),
  ]

  @Test(arguments: cases)
  func refusesWhatRFC8259RefusesAsTheParserDoes(example: Case) {
    #expect(Self.check(example.bytes) == example.valid)
  }

  /// `JSONParser` reads no value at all, not even a number, below the limit's level.
  @Test func theDepthLimitIsTheParsers() {
    func nested(_ levels: Int, holding inner: String) -> [UInt8] {
      Self.member(
        String(repeating: "[", count: levels) + inner + String(repeating: "]", count: levels))
    }
    #expect(Self.check(nested(31, holding: "")))
    #expect(!Self.check(nested(31, holding: "1")))
    #expect(!Self.check(nested(32, holding: "")))
    #expect(Self.check(nested(30, holding: "{\"b\": {}}")) == false)
    #expect(Self.check(nested(29, holding: "{\"b\": {}}")))
  }

  @Test func thirtyThousandLevelsAreRefusedAtTheLimit() {
    let closed = String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)
    #expect(!JSON.isObject(Self.member(closed), maximumDepth: 32))
    #expect(!JSON.isObject(Array(repeating: UInt8(ascii: "["), count: 1 << 20), maximumDepth: 32))
    let objects = Array(String(repeating: "{\"a\":", count: 13_000).utf8)
    #expect(!JSON.isObject(objects, maximumDepth: 512))
  }

  /// Every recorded alarm payload, and random mutations of them, get the parser's verdict.
  @Test func agreesOnTheRecordedStreamAndMutationsOfIt() throws {
    let payloads = try String(
      contentsOfFile: TestServers.fixture("fleet40.alarms.jsonl"), encoding: .utf8
    )
    .split(separator: "\n")
    .compactMap { JSON.object(from: Array($0.utf8))?["payload"]?.string }
    .map { Array($0.utf8) }
    #expect(payloads.count > 1000)
    var accepted = 0
    for payload in payloads where Self.check(payload) { accepted += 1 }
    #expect(accepted > 1000)

    // Bytes at which the grammar turns, and UTF-8 lead and continuation bytes.
    let pivots =
      Array(#"{}[]",:\ue.-+0189tfnx"#.utf8) + [0x00, 0x09, 0x7F, 0x80, 0xBF, 0xC3, 0xED]
      + [0xF0, 0xF4, 0xFF]
    var random = SplitMix64(seed: 26)
    var verdicts = [false: 0, true: 0]
    for round in 0..<30_000 {
      var bytes = payloads[round % payloads.count]
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0: bytes[at] = pivots.randomElement(using: &random)!
        case 1: bytes.insert(pivots.randomElement(using: &random)!, at: at)
        case 2: bytes.remove(at: at)
        default:
          let end = min(bytes.count, at + Int.random(in: 1...12, using: &random))
          bytes.insert(contentsOf: bytes[at..<end], at: at)
        }
        if bytes.isEmpty { bytes = [0x7B] }
      }
      verdicts[Self.check(bytes), default: 0] += 1
    }
    // Both verdicts came up often: the mutations probed the grammar on either side.
    #expect(verdicts[true]! > 1000 && verdicts[false]! > 1000, "\(verdicts)")
  }
}

/// A seeded random source, so that a failing mutation comes back on the next run.
private struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
