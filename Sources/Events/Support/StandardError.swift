import Glibc

/// Writes to standard error, the one place workers' logs and fatal lines go.
public enum StandardError {
  /// Writes the whole text with as few `write(2)` calls as the kernel allows, so a line
  /// from one thread is not split by another's.
  public static func write(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
      guard var next = buffer.baseAddress else { return }
      var remaining = buffer.count
      while remaining > 0 {
        let written = Glibc.write(2, next, remaining)
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }  // nowhere left to report it
        next += written
        remaining -= written
      }
    }
  }
}
