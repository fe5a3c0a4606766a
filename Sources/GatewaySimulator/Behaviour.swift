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
  /// A reply a broken or hostile gateway sends (`MalformedReply`): the worker must end
  /// the capture all the same, and keep only a cleaned, short text of it.
  case malformed(MalformedReply)
  /// A frame, then `{"error":"busy"}` to the same request: only the first may count.
  case twice

  /// The behaviours without a parameter, by the name the command line uses.
  private static let named: [String: Behaviour] = [
    "asleep": .asleep, "no_camera": .noCamera, "busy": .busy, "error": .otherError,
    "garbage": .garbage, "oversized": .oversized, "truncated": .truncated, "silent": .silent,
    "twice": .twice,
  ]

  /// Parses `photo`, `photo:SIZE`, a name of `named`, or a `MalformedReply`'s name.
  init?(_ text: String) {
    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
    if parts.first == "photo" {
      if parts.count == 2 {
        guard let size = Int(parts[1]), size >= 5 else { return nil }
        self = .photo(size: size)
      } else {
        self = .photo(size: nil)
      }
    } else if let behaviour = Self.named[text] {
      self = behaviour
    } else if let malformed = MalformedReply(rawValue: text) {
      self = .malformed(malformed)
    } else {
      return nil
    }
  }

  var name: String {
    switch self {
    case .photo(let size): return size.map { "photo:\($0)" } ?? "photo"
    case .malformed(let reply): return reply.rawValue
    default: return Self.named.first { $0.value == self }?.key ?? "?"
    }
  }
}
