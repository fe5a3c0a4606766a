import Synchronization

/// A warning that can come in floods, logged at most `limit` times a minute; the ones over
/// the limit are counted, and the count is logged when the next minute's first one comes.
/// For warnings whose rate someone else decides: libmicrohttpd's messages about clients
/// (a request without Host, a connection reset), which anyone can produce at will, or
/// photos shed while PostgreSQL falls behind. They matter, so they are logged rather than
/// dropped outright, but a flood of them must not become a flood of log lines.
public final class ThrottledWarning: Sendable {
  /// What one call did.
  public enum Outcome: Equatable, Sendable {
    /// Logged; `suppressedBefore` earlier ones went unlogged and their count was logged too.
    case logged(suppressedBefore: Int)
    case suppressed
  }

  private struct Window {
    var start: ContinuousClock.Instant
    var logged = 0
    var suppressed = 0
  }

  private let message: String
  private let logger: Logger
  private let level: Logger.Level
  private let limit: Int
  private let now: @Sendable () -> ContinuousClock.Instant
  private let window: Mutex<Window>

  /// - Parameters:
  ///   - level: `.error` for what an operator must fix (refused credentials), where a
  ///     warning would be overlooked.
  ///   - now: the monotonic clock; tests pass their own.
  public init(
    _ message: String, logger: Logger, level: Logger.Level = .warning, limit: Int = 10,
    now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
  ) {
    self.message = message
    self.logger = logger
    self.level = level
    self.limit = limit
    self.now = now
    self.window = Mutex(Window(start: now()))
  }

  @discardableResult
  public func log(_ fields: [String: any Sendable] = [:]) -> Outcome {
    let now = now()
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
      logger.log(level, message + ": more suppressed", ["count": suppressed])
    }
    guard allowed else { return .suppressed }
    logger.log(level, message, fields)
    return .logged(suppressedBefore: suppressed)
  }
}
