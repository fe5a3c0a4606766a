import Events
import Foundation
import Infrastructure

/// One subcommand of `mowdeck`.
protocol Command {
  /// The words that select it, e.g. `["fleet", "import"]`.
  static var path: [String] { get }
  static var usage: String { get }
  static var summary: String { get }
  static var flagNames: Set<String> { get }
  static func run(_ arguments: Arguments, _ context: CommandContext) async throws
}

extension Command {
  static var flagNames: Set<String> { [] }
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
