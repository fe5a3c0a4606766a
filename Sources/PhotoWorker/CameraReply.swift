import Events
import Infrastructure

/// Judges the Device-Gateway's reply (docs/interfaces.md#camera-request-and-replies): a complete
/// JPEG of at most 512 KiB, or a JSON error naming why there is none. Any bytes at all end in one
/// of the two; what a failure keeps of the reply is cleaned and short (`FailureDetail`).
enum CameraReply {
  static let maximumBytes = ImageLimits.largestPhotoBytes

  static func classify(_ reply: NATSMessage) -> PhotoResult {
    let data = reply.data
    let type = reply.contentType?.lowercased() ?? ""
    if type.hasPrefix("application/json") || (type.isEmpty && data.first == UInt8(ascii: "{")) {
      return classifyError(data)
    }
    guard data.count <= maximumBytes else {
      return .failed(.tooLarge, detail: "\(data.count) bytes")
    }
    guard isCompleteJPEG(data) else {
      let label = type.isEmpty ? "none" : type
      return .failed(
        .notJPEG, detail: FailureDetail.cleaned("\(data.count) bytes, content type \(label)"))
    }
    return .captured(data)
  }

  /// Starts with the SOI marker and `FF`, ends with the EOI marker.
  static func isCompleteJPEG(_ data: [UInt8]) -> Bool {
    data.count >= 5 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF
      && data[data.count - 2] == 0xFF && data[data.count - 1] == 0xD9
  }

  private static func classifyError(_ data: [UInt8]) -> PhotoResult {
    // Invalid UTF-8 replaced before parsing: one bad byte in the error text costs that
    // byte, not the reason (the parser refuses invalid UTF-8 in a string outright).
    let text = String(decoding: data, as: UTF8.self)
    let error: String
    do {
      error = try WireCoding.decode(CameraErrorReply.self, from: Array(text.utf8)).error
    } catch let failure {
      let what = failure.isJSON ? "error reply of the wrong shape: " : "unreadable error reply: "
      return .failed(.gatewayError, detail: FailureDetail.cleaned(what + text))
    }
    switch error {
    case "asleep": return .failed(.asleep, detail: nil)
    case "no_camera": return .failed(.noCamera, detail: nil)
    case "busy": return .failed(.busy, detail: nil)
    default: return .failed(.gatewayError, detail: FailureDetail.cleaned(error))
    }
  }
}
