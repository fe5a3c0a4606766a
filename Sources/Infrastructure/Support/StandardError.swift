import Glibc

/// Writes to standard error, the one place workers' logs and fatal lines go.
public enum StandardError {
  /// Writes the whole text with as few `write(2)` calls as the kernel allows; a line of
  /// up to 4,096 bytes to a pipe is one write, not split by another thread's.
  public static func write(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
      guard var next = buffer.baseAddress else { return }
      var remaining = buffer.count
      while remaining > 0 {
        let written = Glibc.write(2, next, remaining)
        if written < 0 && errno == EINTR { continue }
        if written < 0 && errno == EAGAIN {
          // A non-blocking stderr that is full: wait for room rather than cut the line.
          var descriptor = pollfd(fd: 2, events: Int16(POLLOUT), revents: 0)
          _ = poll(&descriptor, 1, 1000)
          continue
        }
        guard written > 0 else { return }  // nowhere left to report it
        next += written
        remaining -= written
      }
    }
  }
}
