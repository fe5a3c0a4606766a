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
    var object: [String: JSONValue] = [
      "ts": .string(Timestamp.format(clock.now())), "level": .string(level.rawValue),
      "component": .string(component), "msg": .string(Redaction.redact(message)),
    ]
    for (key, value) in fields { object[key] = Self.redacted(value) }
    var line = JSON.encode(object)
    line.append("\n")
    sink(line)
  }

  /// A field value as JSON with its text redacted: strings, and the description of anything
  /// that is not a number, flag, date or id (errors, URLs, replies), through arrays,
  /// dictionaries (their keys too) and optionals. Dates are RFC 3339 instants, ids lowercase.
  private static func redacted(_ value: Any) -> JSONValue {
    // The dynamic type decides first: cheaper than a chain of casts for the common fields.
    switch ObjectIdentifier(type(of: value)) {
    case ObjectIdentifier(String.self): return .string(Redaction.redact(value as! String))
    case ObjectIdentifier(Bool.self): return .bool(value as! Bool)
    case ObjectIdentifier(Int.self): return .integer(Int64(value as! Int))
    case ObjectIdentifier(Int64.self): return .integer(value as! Int64)
    case ObjectIdentifier(Int32.self): return .integer(Int64(value as! Int32))
    case ObjectIdentifier(UInt64.self):
      let integer = value as! UInt64
      return Int64(exactly: integer).map(JSONValue.integer) ?? .number(Double(integer))
    case ObjectIdentifier(Double.self): return .number(value as! Double)
    case ObjectIdentifier(Date.self): return .string(Timestamp.format(value as! Date))
    case ObjectIdentifier(UUID.self): return .string((value as! UUID).uuidString.lowercased())
    default: break
    }
    switch value {
    case let json as JSONValue: return redacted(json)
    case let dictionary as [String: any Sendable]:
      return .object(redactedMembers(dictionary.mapValues(redacted)))
    case let array as [any Sendable]: return .array(array.map(redacted))
    default:
      let mirror = Mirror(reflecting: value)
      guard mirror.displayStyle == .optional else {
        return .string(Redaction.redact(String(describing: value)))
      }
      return mirror.children.first.map { redacted($0.value) } ?? .null
    }
  }

  private static func redacted(_ json: JSONValue) -> JSONValue {
    switch json {
    case .string(let string): return .string(Redaction.redact(string))
    case .array(let array): return .array(array.map(redacted))
    case .object(let object): return .object(redactedMembers(object.mapValues(redacted)))
    case .null, .bool, .integer, .number: return json
    }
  }

  /// A nested object's keys redacted too: a field may carry what a client sent, keys and all.
  private static func redactedMembers(_ object: [String: JSONValue]) -> [String: JSONValue] {
    Dictionary(
      object.map { (Redaction.redact($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
  }
}
