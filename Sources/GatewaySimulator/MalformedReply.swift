/// Replies a broken or hostile Device-Gateway could send (issue 20): each must end its
/// capture as failed within the timeout, with a cleaned and short detail.
enum MalformedReply: String, Sendable, CaseIterable {
  /// `{"error":"x\u0000y"}`: a NUL that jsonb refuses, escaped as JSON allows.
  case nulError = "nul_error"
  /// An error text of 3 KB, with control characters in it.
  case longError = "long_error"
  /// An error text with bytes that are not UTF-8.
  case invalidUTF8Error = "invalid_utf8_error"
  /// A JSON array where an object belongs.
  case jsonArray = "json_array"
  /// `{"error": 5}`: an object whose error is not a text.
  case numericError = "numeric_error"
  /// A JSON error labelled `image/jpeg`.
  case jsonAsJPEG = "json_as_jpeg"

  /// The bytes and the Content-Type it is sent with.
  var reply: (data: [UInt8], contentType: String) {
    switch self {
    case .nulError:
      return (Array(#"{"error":"x\u0000y"}"#.utf8), "application/json")
    case .longError:
      let text = String(repeating: "overheated\\u0007\\t", count: 200)
      return (
        Array(#"{"error":""#.utf8) + Array(text.utf8) + Array(#""}"#.utf8), "application/json"
      )
    case .invalidUTF8Error:
      let bytes: [UInt8] = [0x63, 0x61, 0x66, 0xC3, 0x28, 0xFF, 0xFE, 0x21]  // "caf", bad, "!"
      return (Array(#"{"error":""#.utf8) + bytes + Array(#""}"#.utf8), "application/json")
    case .jsonArray:
      return (Array(#"["asleep"]"#.utf8), "application/json")
    case .numericError:
      return (Array(#"{"error": 5}"#.utf8), "application/json")
    case .jsonAsJPEG:
      return (Array(#"{"error":"asleep"}"#.utf8), "image/jpeg")
    }
  }
}
