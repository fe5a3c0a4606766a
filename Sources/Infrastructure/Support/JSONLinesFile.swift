import Glibc

/// A file that typed records are appended to as JSON lines, as the test doubles keep what
/// they received. Each line is one `write(2)` on a file opened with `O_APPEND`: a reader
/// never sees half a line, lines written from several server threads never interleave,
/// and nothing is lost if the process is killed (there is no buffer to flush).
public final class JSONLinesFile: Sendable {
  private let descriptor: Int32

  public struct CannotOpen: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "cannot open the record file \(path): \(reason)" }
  }

  public init(path: String) throws(CannotOpen) {
    descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw CannotOpen(path: path, reason: String(cString: strerror(errno)))
    }
  }

  deinit { close(descriptor) }

  /// Appends `line` through `WireCoding` (keys sorted); a failed write is dropped, as a
  /// full disk must not stop a test double from answering.
  public func append(_ line: some Encodable) {
    let bytes = WireCoding.encode(line) + [UInt8(ascii: "\n")]
    var written = 0
    while written < bytes.count {
      let result = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress! + written, $0.count - written)
      }
      if result < 0, errno == EINTR { continue }
      guard result > 0 else { return }
      written += result
    }
  }
}
