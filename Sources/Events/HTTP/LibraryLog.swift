import Synchronization

/// libmicrohttpd's own messages, passed to the JSON log at most `limit` a minute: most of
/// them are about clients (a request without Host, a connection reset), which anyone can
/// produce at will, and a flood of them must not become a flood of log lines. The rest
/// (descriptors exhausted) matter, so they are logged rather than dropped outright.
final class LibraryLog: Sendable {
  private struct Window {
    var start: ContinuousClock.Instant
    var logged = 0
    var suppressed = 0
  }

  private let logger: Logger
  private let limit: Int
  private let window = Mutex(Window(start: .now))

  init(logger: Logger, limit: Int = 10) {
    self.logger = logger
    self.limit = limit
  }

  func log(_ message: String) {
    let now = ContinuousClock.now
    let (allowed, suppressed) = window.withLock { window -> (Bool, Int) in
      var suppressed = 0
      if now - window.start >= .seconds(60) {
        suppressed = window.suppressed
        window = Window(start: now)
      }
      window.logged += 1
      if window.logged > limit { window.suppressed += 1 }
      return (window.logged <= limit, suppressed)
    }
    if suppressed > 0 {
      logger.warning("libmicrohttpd messages suppressed", ["count": suppressed])
    }
    if allowed { logger.warning("libmicrohttpd", ["detail": message]) }
  }
}
