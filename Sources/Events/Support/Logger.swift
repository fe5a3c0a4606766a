import FoundationEssentials

/// JSON-lines logs on standard error: one object a line with time, level, component and
/// message, plus fields. Operators grep or `jq` them; nothing secret is ever passed in.
public struct Logger: Sendable {
  public enum Level: String, Sendable, Comparable {
    case debug, info, warning, error

    private var rank: Int {
      switch self {
      case .debug: return 0
      case .info: return 1
      case .warning: return 2
      case .error: return 3
      }
    }

    public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
  }

  public let component: String
  public let minimumLevel: Level
  private let clock: any WallClock

  public init(component: String, minimumLevel: Level = .info, clock: any WallClock = SystemClock())
  {
    self.component = component
    self.minimumLevel = minimumLevel
    self.clock = clock
  }

  public func debug(_ message: String, _ fields: [String: any Sendable] = [:]) {
    log(.debug, message, fields)
  }

  public func info(_ message: String, _ fields: [String: any Sendable] = [:]) {
    log(.info, message, fields)
  }

  public func warning(_ message: String, _ fields: [String: any Sendable] = [:]) {
    log(.warning, message, fields)
  }

  public func error(_ message: String, _ fields: [String: any Sendable] = [:]) {
    log(.error, message, fields)
  }

  public func log(_ level: Level, _ message: String, _ fields: [String: any Sendable]) {
    guard level >= minimumLevel else { return }
    var object: [String: Any] = [
      "ts": Timestamp.format(clock.now()), "level": level.rawValue, "component": component,
      "msg": message,
    ]
    for (key, value) in fields { object[key] = value }
    var line = JSON.encode(object)
    line.append("\n")
    StandardError.write(line)
  }
}
