import FoundationEssentials

/// Text made safe for an HTTP header value. A mower's name is the user's to choose: it may
/// hold any language, and a line break would end the header and start another. Printable
/// ASCII goes as it is; anything else as RFC 2047 encoded words (`=?UTF-8?B?...?=`), which
/// ntfy decodes, each at most 75 characters and split between Unicode scalars (a decoder
/// joins the words' bytes, so a character may span two).
enum HeaderText {
  /// Bytes of text per encoded word: 45 bytes are 60 base64 characters, and with
  /// `=?UTF-8?B?` and `?=` the word is 72.
  static let bytesPerWord = 45

  static func value(_ text: String) -> String {
    guard text.utf8.allSatisfy({ (32...126).contains($0) }) else { return encoded(text) }
    return text
  }

  private static func encoded(_ text: String) -> String {
    var words: [String] = []
    var chunk: [UInt8] = []
    func flush() {
      guard !chunk.isEmpty else { return }
      words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
      chunk = []
    }
    for scalar in text.unicodeScalars {
      let bytes = Array(String(scalar).utf8)
      if chunk.count + bytes.count > bytesPerWord { flush() }
      chunk += bytes
    }
    flush()
    return words.joined(separator: " ")
  }
}
