import Foundation

/// RFC 2047 encoded words in header values (`=?UTF-8?B?Um9iYmll?=`), decoded as ntfy does
/// (Go's `mime.WordDecoder.DecodeHeader`) so that a title in any language survives a header:
/// words in UTF-8 or US-ASCII, B or Q encoded; whitespace between two encoded words is
/// dropped; anything that is not a valid encoded word stays as it was sent.
enum EncodedWords {
  static func decode(_ value: String) -> String {
    guard value.contains("=?") else { return value }
    var result = ""
    var previousWasEncoded = false
    for (index, token) in value.split(separator: " ", omittingEmptySubsequences: false)
      .enumerated()
    {
      if let decoded = word(token) {
        if index > 0 && !previousWasEncoded { result += " " }
        result += decoded
        previousWasEncoded = true
      } else {
        if index > 0 { result += " " }
        result += token
        previousWasEncoded = false
      }
    }
    return result
  }

  /// One `=?charset?encoding?text?=`, decoded; nil when it is not one.
  private static func word(_ token: Substring) -> String? {
    guard token.hasPrefix("=?"), token.hasSuffix("?="), token.count > 4 else { return nil }
    let parts = token.dropFirst(2).dropLast(2).split(
      separator: "?", omittingEmptySubsequences: false)
    guard parts.count == 3, ["utf-8", "us-ascii"].contains(parts[0].lowercased()) else {
      return nil
    }
    let bytes: [UInt8]?
    switch parts[1].uppercased() {
    case "B": bytes = Data(base64Encoded: String(parts[2])).map { Array($0) }
    case "Q": bytes = quoted(parts[2])
    default: bytes = nil
    }
    guard let bytes else { return nil }
    return String(validating: bytes, as: UTF8.self)
  }

  /// RFC 2047's Q encoding: `_` is a space, `=XX` a byte in hex.
  private static func quoted(_ text: Substring) -> [UInt8]? {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      switch byte {
      case UInt8(ascii: "_"): bytes.append(UInt8(ascii: " "))
      case UInt8(ascii: "="):
        guard let high = iterator.next(), let low = iterator.next(),
          let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
        else { return nil }
        bytes.append(value)
      default: bytes.append(byte)
      }
    }
    return bytes
  }
}
