import Events
import Foundation

/// A project executable run as a real process, for the tests that kill and restart workers.
public final class WorkerProcess: @unchecked Sendable {
  // `process` is created in init and only read afterwards; Process is thread-safe for that.
  private let process: Process
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
    // Many workers share this machine: each picks a free port for /healthz and /metrics.
    environment["MOWDECK_METRICS_LISTEN"] = "127.0.0.1:0"
    return environment
  }

  public init(_ executable: String, arguments: [String] = [], environment: [String: String])
    throws
  {
    name = executable
    logFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(executable)-\(UUID().uuidString.prefix(8)).log")
    _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
    let handle = try FileHandle(forWritingTo: logFile)
    process = Process()
    process.executableURL = TestServers.binDirectory.appendingPathComponent(executable)
    process.arguments = arguments
    process.environment = environment
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
  }

  public var isRunning: Bool { process.isRunning }
  public var pid: Int32 { process.processIdentifier }

  /// SIGKILL: no chance to finish anything, as a crash.
  public func kill() {
    if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  /// SIGTERM, then waits for the process to stop; returns its exit status.
  @discardableResult
  public func stop() -> Int32 {
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    return process.terminationStatus
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
    return process.terminationStatus
  }

  public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

  deinit { if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) } }
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

/// Runs a shell command line to its end; returns its standard output, throws with the
/// output when it fails. For the `openssl`, `curl` and script calls of tests and benchmarks.
@discardableResult
public func runShell(_ command: String) throws -> String {
  let process = Process()
  let output = Pipe()
  let errors = Pipe()
  process.executableURL = URL(fileURLWithPath: "/bin/sh")
  process.arguments = ["-c", command]
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw TimedOut(what: "command to succeed: \(command.prefix(200)): \(errorText.prefix(500))")
  }
  return String(decoding: data, as: UTF8.self)
}
