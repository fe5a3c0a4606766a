import CLibPQ
import FoundationEssentials

/// Reads and checks single environment variables; each failure names its variable.
public struct EnvironmentReader {
  public let environment: [String: String]
  /// Secret settings and the variable that may name a file holding each instead
  /// (`MOWDECK_DATABASE_URL` and `MOWDECK_DATABASE_URL_FILE`): a secret in a file mounted
  /// at `/run/secrets/...` is not in `docker inspect`, nor in every child's environment.
  public let secretFiles: [String: String]

  public init(_ environment: [String: String], secretFiles: [String: String] = [:]) {
    self.environment = environment
    self.secretFiles = secretFiles
  }

  /// The trimmed value, or nil when unset or empty. A secret's value is read from the file
  /// its file variable names, when that is set (a trailing newline is trimmed with the
  /// rest of the whitespace).
  public func string(_ name: String) throws(ConfigurationError) -> String? {
    guard let raw = try raw(name) else { return nil }
    let value = raw.trimmingWhitespace()
    return value.isEmpty ? nil : value
  }

  /// A variable's text, or for a secret whose file variable is set, the file's. Errors
  /// name the variable and the path, never what the file holds.
  private func raw(_ name: String) throws(ConfigurationError) -> String? {
    guard let fileVariable = secretFiles[name],
      let path = environment[fileVariable]?.trimmingWhitespace(), !path.isEmpty
    else { return environment[name] }
    if let direct = environment[name], !direct.trimmingWhitespace().isEmpty {
      throw ConfigurationError(
        variable: fileVariable, problem: "and \(name) are both set: set only one of them")
    }
    let text: String
    do {
      text = try TextFile.read(path)
    } catch {
      throw ConfigurationError(
        variable: fileVariable, problem: "names \(path.debugDescription), which cannot be read")
    }
    guard !text.trimmingWhitespace().isEmpty else {
      throw ConfigurationError(
        variable: fileVariable, problem: "names \(path.debugDescription), which is empty")
    }
    return text
  }

  /// A yes-or-no setting: `1` or `true` is yes; unset, `0` or `false` is no.
  public func flag(_ name: String) throws(ConfigurationError) -> Bool {
    guard let text = try string(name) else { return false }
    switch text.lowercased() {
    case "1", "true": return true
    case "0", "false": return false
    default:
      throw ConfigurationError(
        variable: name, problem: "must be 1 or 0 (true or false), got \(text.debugDescription)")
    }
  }

  /// Comma-separated IP addresses and CIDR blocks; unset is nobody.
  public func trustedProxies(_ name: String) throws(ConfigurationError) -> TrustedProxies {
    guard let text = try string(name) else { return .none }
    do {
      return try TrustedProxies(parsing: text)
    } catch {
      throw ConfigurationError(
        variable: name,
        problem: "must be IP addresses or CIDR blocks (10.0.0.0/8, fd00::/8), comma-separated,"
          + " got \(error.entry.debugDescription)")
    }
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

  /// Comma-separated values, blanks dropped.
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
