import CLibPQ
import FoundationEssentials

/// Reads and checks single environment variables; each failure names its variable.
public struct EnvironmentReader {
  public let environment: [String: String]

  public init(_ environment: [String: String]) { self.environment = environment }

  /// The trimmed value, or nil when unset or empty.
  public func string(_ name: String) throws(ConfigurationError) -> String? {
    guard let raw = environment[name] else { return nil }
    let value = raw.trimmingWhitespace()
    return value.isEmpty ? nil : value
  }

  public func positive(_ name: String, _ fallback: Int) throws(ConfigurationError) -> Int {
    let value = try integer(name, fallback)
    guard value > 0 else { throw ConfigurationError(variable: name, problem: "must be above 0") }
    return value
  }

  /// A whole number no smaller than `minimum`; `reason` says why, in the error.
  public func atLeast(_ name: String, _ fallback: Int, minimum: Int, because reason: String)
    throws(ConfigurationError) -> Int
  {
    let value = try integer(name, fallback)
    guard value >= minimum else {
      throw ConfigurationError(
        variable: name, problem: "must be at least \(minimum) (\(reason)), got \(value)")
    }
    return value
  }

  /// A whole number in `range`; `reason` says why, in the error.
  public func within(
    _ name: String, _ fallback: Int, _ range: ClosedRange<Int>, because reason: String
  ) throws(ConfigurationError) -> Int {
    let value = try integer(name, fallback)
    guard range.contains(value) else {
      throw ConfigurationError(
        variable: name,
        problem:
          "must be from \(range.lowerBound) to \(range.upperBound) (\(reason)), got \(value)")
    }
    return value
  }

  public func nonNegative(_ name: String, _ fallback: Int) throws(ConfigurationError) -> Int {
    let value = try integer(name, fallback)
    guard value >= 0 else {
      throw ConfigurationError(variable: name, problem: "must not be negative")
    }
    return value
  }

  private func integer(_ name: String, _ fallback: Int) throws(ConfigurationError) -> Int {
    guard let text = try string(name) else { return fallback }
    guard let value = Int(text) else {
      throw ConfigurationError(
        variable: name, problem: "must be a whole number, got \(text.debugDescription)")
    }
    return value
  }

  /// An http or https origin such as `https://mowdeck.example.com` (no trailing slash kept).
  public func url(_ name: String) throws(ConfigurationError) -> String? {
    guard var text = try string(name) else { return nil }
    while text.hasSuffix("/") { text.removeLast() }
    guard let components = URLComponents(string: text),
      let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
      let host = components.host, !host.isEmpty
    else {
      throw ConfigurationError(
        variable: name, problem: "must be an http(s) URL, got \(text.debugDescription)")
    }
    return text
  }

  /// A PostgreSQL connection string as libpq reads it, a `postgresql://` URI or `key=value`
  /// pairs, checked by libpq's own parser (no connection is made). The error says what is
  /// wrong in libpq's words, but without the parts of the value libpq quotes: they may be
  /// the password, or the whole URI with it.
  public func databaseURL(_ name: String) throws(ConfigurationError) -> String? {
    guard let text = try string(name) else { return nil }
    var error: UnsafeMutablePointer<CChar>?
    guard let options = PQconninfoParse(text, &error) else {
      let reason = Self.withoutQuotedParts(error.map { String(cString: $0) } ?? "out of memory")
      PQfreemem(error)
      throw ConfigurationError(
        variable: name,
        problem: "is not a PostgreSQL connection string ("
          + reason.split(whereSeparator: \.isNewline).joined(separator: " ") + ")")
    }
    PQconninfoFree(options)
    return text
  }

  /// libpq's message with each quoted part longer than one character (a token of the
  /// value) shown as `"…"`; one-character parts (`"="`, `"]"`) are its own punctuation.
  public static func withoutQuotedParts(_ message: String) -> String {
    let parts = message.split(separator: "\"", omittingEmptySubsequences: false)
    return parts.enumerated().map { index, part in
      index % 2 == 1 && part.count > 1 ? "…" : String(part)
    }.joined(separator: "\"")
  }

  public func natsURL(_ name: String) throws(ConfigurationError) -> String? {
    guard let text = try string(name) else { return nil }
    let servers = text.split(separator: ",").map { $0.trimmingWhitespace() }
    for server in servers {
      guard let components = URLComponents(string: server),
        let scheme = components.scheme, ["nats", "tls"].contains(scheme.lowercased()),
        components.host != nil
      else {
        throw ConfigurationError(
          variable: name,
          problem: "must be nats://host:port (comma-separated), got \(text.debugDescription)")
      }
    }
    return text
  }

  public func list(_ name: String) throws(ConfigurationError) -> [String] {
    guard let text = try string(name) else { return [] }
    return text.split(separator: ",").map { $0.trimmingWhitespace() }
      .filter { !$0.isEmpty }
  }

  /// `host:port`, with a port from 0 to 65535 (0 picks a free one, for tests).
  public func listenAddress(_ name: String) throws(ConfigurationError) -> String? {
    guard let text = try string(name) else { return nil }
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
      (0...65535).contains(port), colon != text.startIndex
    else {
      throw ConfigurationError(
        variable: name, problem: "must be host:port, got \(text.debugDescription)")
    }
    return text
  }

  public func logLevel(_ name: String) throws(ConfigurationError) -> Logger.Level? {
    guard let text = try string(name) else { return nil }
    guard let level = Logger.Level(rawValue: text.lowercased()) else {
      throw ConfigurationError(
        variable: name,
        problem: "must be debug, info, warning or error, got \(text.debugDescription)")
    }
    return level
  }
}
