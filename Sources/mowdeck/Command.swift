import Events
import Foundation
import Infrastructure

/// One subcommand of `mowdeck`.
protocol Command {
  /// The words that select it, e.g. `["fleet", "import"]`.
  static var path: [String] { get }
  static var usage: String { get }
  static var summary: String { get }
  /// Every option, flag and positional argument it reads; any other word is refused.
  static var grammar: Grammar { get }
  static func run(_ arguments: Arguments, _ context: CommandContext) async throws
}

/// A command that could not do what was asked, though it was asked rightly (a device of
/// another user, no such session): its message, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
  let message: String
  init(_ message: String) { self.message = message }
  var description: String { message }
}

/// What every subcommand may use, built once from the configuration.
struct CommandContext {
  let configuration: Configuration
  let logger: Logger

  func pool() -> DatabasePool {
    DatabasePool(url: configuration.databaseURL, applicationName: "mowdeck", maxConnections: 8)
  }

  func nats() throws -> NATSClient {
    try NATSClient.connect(url: configuration.natsURL, name: "mowdeck", logger: logger)
  }

  var subjects: Subjects { Subjects(prefix: configuration.natsSubjectPrefix) }
}

/// Prints to standard output (results) — logs go to standard error.
func say(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Prints one JSON document (`--json`): keys sorted, instants in RFC 3339, as on the wire.
func sayJSON(_ value: some Encodable) {
  say(String(decoding: WireCoding.encode(value), as: UTF8.self))
}
