import Foundation
import Infrastructure
import Testing

@Suite struct DigestTests {
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
  ])
  func sha256MatchesTheStandardVectors(input: String, hex: String) {
    #expect(Digest.sha256Hex(Array(input.utf8)) == hex)
    #expect(Digest.sha256(Array(input.utf8)).count == 32)
  }

  @Test func sha256OfAMillionAs() {
    let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(
      Digest.sha256Hex(input) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test func sha256AcceptsSlices() {
    let bytes = Array("xxabcxx".utf8)
    #expect(Digest.sha256Hex(bytes[2..<5]) == Digest.sha256Hex(Array("abc".utf8)))
  }

  @Test func nameBasedUUIDsAreStableVersion5AndDistinct() {
    let first = Digest.uuid(from: "alarm-1")
    #expect(first == Digest.uuid(from: "alarm-1"))
    #expect(first != Digest.uuid(from: "alarm-2"))
    let bytes = first.uuid
    #expect(bytes.6 >> 4 == 5)
    #expect(bytes.8 & 0xC0 == 0x80)
    // The leading bytes are those of the SHA-256 of the name.
    let digest = Digest.sha256(Array("alarm-1".utf8))
    #expect([bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5] == Array(digest.prefix(6)))
  }
}
