import FoundationEssentials

/// JSON-lines logs on standard error: one object a line with time, level, component and message,
/// plus fields. Operators grep or `jq` them. Call sites pass URLs, errors and replies as they are:
/// the message and every field go through `Redaction` here, so no credential reaches a line whoever
/// forgets (docs/interfaces.md#event-log).
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
  private let sink: @Sendable (String) -> Void

  /// - Parameter sink: where each finished line goes; standard error but in tests.
  public init(
    component: String, minimumLevel: Level = .info, clock: any WallClock = SystemClock(),
    sink: @escaping @Sendable (String) -> Void = StandardError.write
  ) {
    self.component = component
    self.minimumLevel = minimumLevel
    self.clock = clock
    self.sink = sink
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
      "msg": Redaction.redact(message),
    ]
    for (key, value) in fields { object[key] = Self.redacted(value) }
    var line = JSON.encode(object)
    line.append("\n")
    sink(line)
  }

  /// A field value with its text redacted: strings, and the description of anything that
  /// is not a number, flag, date or id (errors, URLs, replies), through arrays and
  /// dictionaries and optionals. What JSON.encode would describe is described here first.
  private static func redacted(_ value: Any) -> Any {
    switch ObjectIdentifier(type(of: value)) {
    case ObjectIdentifier(String.self): return Redaction.redact(value as! String)
    case ObjectIdentifier(Bool.self), ObjectIdentifier(Int.self), ObjectIdentifier(Int64.self),
      ObjectIdentifier(UInt64.self), ObjectIdentifier(Int32.self), ObjectIdentifier(Double.self),
      ObjectIdentifier(Date.self), ObjectIdentifier(UUID.self), ObjectIdentifier(JSON.Null.self):
      return value
    default: break
    }
    switch value {
    case let dictionary as [String: Any]: return dictionary.mapValues(redacted)
    case let array as [Any]: return array.map(redacted)
    default:
      let mirror = Mirror(reflecting: value)
      guard mirror.displayStyle == .optional else {
        return Redaction.redact(String(describing: value))
      }
      return mirror.children.first.map { redacted($0.value) } ?? JSON.null
    }
  }
}
