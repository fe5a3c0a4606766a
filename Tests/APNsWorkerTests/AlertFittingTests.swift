import Foundation
import Infrastructure
import Testing

@testable import APNsWorker

/// `AlertFitting` counts the bytes a text takes in the payload without encoding it; the count
/// must be the encoder's (`WireCoding`), or the payload is either over 4,096 bytes or emptier
/// than it needs to be.
@Suite struct AlertFittingTests {
  /// The bytes `WireCoding` writes for the text inside a JSON string.
  func encoded(_ text: String) -> Int {
    WireCoding.encode([text]).count - #"[""]"#.utf8.count
  }

  @Test func eachASCIICharacterIsCountedAsTheEncoderWritesIt() {
    for value in UInt32(0)..<0x80 {
      let text = String(Unicode.Scalar(value)!)
      #expect(AlertFitting.encodedLength(text) == encoded(text), "U+\(String(value, radix: 16))")
    }
  }

  @Test(arguments: [
    "ü", "€", "🙂", "👨‍👩‍👧", "e\u{301}", "\u{7F}", "\u{85}", "\u{2028}", "\u{FEFF}", "/",
    "Robbie \"the \\ mower\"\t\u{8}\u{C}\u{1B}/ü🙂",
  ])
  func otherTextsAreCountedAsTheEncoderWritesThem(text: String) {
    #expect(AlertFitting.encodedLength(text) == encoded(text))
  }

  @Test func aCutTextFitsItsBytesWithItsEllipsis() {
    let text = String(repeating: "\u{8}ü", count: 100)
    for bytes in [0, 2, 3, 4, 7, 8, 100] {
      let cut = AlertFitting.cut(text, to: bytes)
      #expect(encoded(cut) <= bytes, "\(bytes)")
      // As full as can be: one more character would not fit.
      #expect(encoded(cut) > bytes - 5 || cut.isEmpty, "\(bytes)")
    }
  }
}
