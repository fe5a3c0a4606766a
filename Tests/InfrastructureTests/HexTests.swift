import Testing

@testable import Infrastructure

@Suite struct HexTests {
  @Test func encodesEveryByteAsTwoLowercaseDigits() {
    let all = (0...255).map { UInt8($0) }
    let text = Hex.encode(all)
    #expect(text.count == 512)
    #expect(text.hasPrefix("000102"))
    #expect(text.hasSuffix("fdfeff"))
    #expect(text == text.lowercased())
    #expect(Hex.encode([]) == "")
    #expect(Hex.encode([0xDE, 0xAD, 0xBE, 0xEF]) == "deadbeef")
  }

  @Test func byteaTextDecodesBackToTheBytes() {
    let all = (0...255).map { UInt8($0) }
    #expect(Hex.decodeBytea("\\x" + Hex.encode(all)) == all)
    #expect(Hex.decodeBytea("\\xDEADbeef") == [0xDE, 0xAD, 0xBE, 0xEF])
    #expect(Hex.decodeBytea("\\x") == [])
  }

  @Test(arguments: ["", "\\", "x00", "\\y00", "\\x0", "\\x0g", "\\x 0", "00", "\\x00\n"])
  func malformedByteaTextIsRejected(text: String) {
    #expect(Hex.decodeBytea(text) == nil)
  }

  @Test func hexDigitsAreExactlyTheTwentyTwo() {
    let digits = (0...255).map { UInt8($0) }.filter { Hex.isDigit($0) }
    #expect(String(decoding: digits, as: UTF8.self) == "0123456789ABCDEFabcdef")
  }
}
