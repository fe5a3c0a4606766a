/// How the simulated camera answers one request.
enum Behaviour: Sendable, Equatable {
  /// A frame from the library (or a synthetic one of `size` bytes) after `latencyMs`.
  case photo(size: Int?)
  case asleep
  case noCamera
  case busy
  /// An error the contract does not name: the worker must call it `gateway_error`.
  case otherError
  /// Bytes that are not a JPEG, labelled `image/jpeg`.
  case garbage
  /// A complete JPEG over 512 KiB.
  case oversized
  /// A JPEG cut in half.
  case truncated
  /// No reply at all: the worker's request times out.
  case silent

  /// Parses `photo`, `photo:SIZE`, `asleep`, `no_camera`, `busy`, `error`, `garbage`,
  /// `oversized`, `truncated`, `silent`.
  init?(_ text: String) {
    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
    switch parts[0] {
    case "photo":
      if parts.count == 2 {
        guard let size = Int(parts[1]), size >= 5 else { return nil }
        self = .photo(size: size)
      } else {
        self = .photo(size: nil)
      }
    case "asleep": self = .asleep
    case "no_camera": self = .noCamera
    case "busy": self = .busy
    case "error": self = .otherError
    case "garbage": self = .garbage
    case "oversized": self = .oversized
    case "truncated": self = .truncated
    case "silent": self = .silent
    default: return nil
    }
  }

  var name: String {
    switch self {
    case .photo(let size): return size.map { "photo:\($0)" } ?? "photo"
    case .asleep: return "asleep"
    case .noCamera: return "no_camera"
    case .busy: return "busy"
    case .otherError: return "error"
    case .garbage: return "garbage"
    case .oversized: return "oversized"
    case .truncated: return "truncated"
    case .silent: return "silent"
    }
  }
}
