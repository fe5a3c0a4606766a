import Foundation
import Infrastructure
import TestSupport
import Testing

/// Runs the `mowdeck` executable to its end, over `database` when given (with a subject
/// prefix of its own); returns its exit status and everything it printed.
func mowdeck(
  _ arguments: [String], database: TestDatabase? = nil, environment extra: [String: String] = [:]
) async throws -> (status: Int32, output: String) {
  var environment = ProcessInfo.processInfo.environment
  if let database {
    environment = try WorkerProcess.environment(
      database: database, subjectPrefix: uniqueSubjectPrefix())
  }
  environment.merge(extra) { _, given in given }
  return try await runCommand(
    "mowdeck", arguments, environment: environment, timeout: .seconds(60))
}

/// The JSON document of a `--json` run: its one line that is JSON (a warning logged to
/// standard error may precede it), parsed as the project parses JSON.
func jsonOutput(_ output: String) throws -> JSONValue {
  let line = output.split(separator: "\n").last { $0.hasPrefix("[") || $0.hasPrefix("{") }
  return try #require(JSON.value(from: Array((line ?? "").utf8)), "no JSON in: \(output)")
}
