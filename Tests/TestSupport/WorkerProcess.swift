import Events
import Foundation
import Infrastructure

/// A project executable run as a real process, for the tests that kill and restart workers.
public final class WorkerProcess: @unchecked Sendable {
  private let process: ChildProcess
  public let name: String
  public let logFile: URL

  /// The environment every worker of a test shares: its schema and its subject prefix.
  public static func environment(database: TestDatabase, subjectPrefix: String) throws
    -> [String: String]
  {
    var environment = ProcessInfo.processInfo.environment
    environment["MOWDECK_DATABASE_URL"] = database.url
    environment["MOWDECK_NATS_URL"] = try TestServers.natsURL()
    environment["MOWDECK_NATS_SUBJECT_PREFIX"] = subjectPrefix
    // Many workers share this machine: each picks a free port for its monitoring endpoint.
    environment["MOWDECK_METRICS_LISTEN"] = "127.0.0.1:0"
    // `stop()` blocks its thread until the worker has exited, and the tests' tasks share
    // two threads: workers under test are cancelled at once, without draining (the
    // shutdown tests set a grace of their own).
    environment["MOWDECK_SHUTDOWN_GRACE_SECONDS"] = "0"
    return environment
  }

  public init(_ executable: String, arguments: [String] = [], environment: [String: String])
    throws
  {
    name = executable
    logFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(executable)-\(UUID().uuidString.prefix(8)).log")
    process = try ChildProcess(
      executable: TestServers.binDirectory.appendingPathComponent(executable).path,
      arguments: arguments, environment: environment, output: logFile.path, errors: nil)
  }

  public var isRunning: Bool { process.isRunning }
  public var pid: Int32 { process.pid }

  /// SIGKILL: no chance to finish anything, as a crash.
  public func kill() {
    process.send(SIGKILL)
    process.waitUntilExit()
  }

  /// Sends `number` (SIGTERM, SIGINT, ...) without waiting.
  public func signal(_ number: Int32) {
    process.send(number)
  }

  /// SIGTERM, then waits for the process to stop; returns its exit status.
  @discardableResult
  public func stop() -> Int32 {
    process.send(SIGTERM)
    return process.waitUntilExit()
  }

  /// Waits for the process to end by itself (up to `timeout`), returns its exit status.
  public func wait(timeout: Duration = .seconds(60)) async throws -> Int32 {
    let deadline = ContinuousClock.now + timeout
    while process.isRunning {
      guard ContinuousClock.now < deadline else {
        kill()
        throw TimedOut(what: "\(name) to finish")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    return process.waitUntilExit()
  }

  public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

  /// The port of the process's monitoring endpoint (`/livez`, `/readyz`, `/healthz`,
  /// `/metrics`), from its `listening` line with `"purpose":"monitoring"`; nil before it
  /// has logged it.
  public var monitoringPort: Int? {
    for line in log.split(separator: "\n") {
      guard let object = JSON.object(from: Array(line.utf8)),
        object["msg"]?.string == "listening",
        object["purpose"]?.string == MonitoringEndpoint.purpose,
        let port = object["port"]?.integer
      else { continue }
      return port
    }
    return nil
  }

  deinit {
    process.send(SIGKILL)
    process.waitUntilExit()
  }
}

public struct TimedOut: Error, CustomStringConvertible {
  public let what: String
  public init(what: String) { self.what = what }
  public var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` until it holds or `timeout` passes.
public func eventually(
  timeout: Duration = .seconds(20), _ what: String, _ condition: () async throws -> Bool
) async throws {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if try await condition() { return }
    try await Task.sleep(for: .milliseconds(25))
  }
  throw TimedOut(what: what)
}

/// A subject prefix of its own for one test.
public func uniqueSubjectPrefix() -> String {
  "t" + UUID().uuidString.prefix(8).lowercased()
}

/// Runs a project command to its end; returns its exit status and everything it printed.
public func runCommand(
  _ executable: String, _ arguments: [String], environment: [String: String],
  timeout: Duration = .seconds(120)
) async throws -> (status: Int32, output: String) {
  let process = try WorkerProcess(executable, arguments: arguments, environment: environment)
  let status = try await process.wait(timeout: timeout)
  return (status, process.log)
}

/// `runShell` on a thread of its own, so that a slow command does not hold one of the few
/// threads the tests' tasks (and the in-process servers of other tests) run on.
public func runShellOffThePool(_ command: String) async throws -> String {
  try await withCheckedThrowingContinuation { continuation in
    DispatchQueue.global().async {
      continuation.resume(with: Result { try runShell(command) })
    }
  }
}

/// Runs a shell command line to its end; returns its standard output, throws with the
/// output when it fails. For the `openssl`, `curl` and script calls of tests and benchmarks.
@discardableResult
public func runShell(_ command: String) throws -> String {
  let captured = CapturedOutput(prefix: "shell")
  defer { captured.remove() }
  let process = try ChildProcess(
    executable: "/bin/sh", arguments: ["-c", command],
    environment: ProcessInfo.processInfo.environment, output: captured.output,
    errors: captured.errors)
  guard process.waitUntilExit() == 0 else {
    throw TimedOut(
      what: "command to succeed: \(command.prefix(200)): \(captured.errorText.prefix(500))")
  }
  return captured.outputText
}

/// A TCP port nothing listens on right now.
public func freePort() throws -> Int {
  let text = try runShell(
    "python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); print(s.getsockname()[1])'"
  )
  guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
    throw TimedOut(what: "a free port")
  }
  return port
}
