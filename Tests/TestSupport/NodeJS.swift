import Foundation

/// Node.js, which `scripts/setup.sh` installs: the browser tests' driver, and the
/// independent implementation some tests check the product's Swift against.
public enum NodeJS {
  public static let executable = ["/usr/bin/node", "/usr/bin/nodejs"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

  /// A test that needs Node.js fails with this rather than skipping (ADR 0037).
  public struct Missing: Error, CustomStringConvertible {
    public var description: String {
      "node is not installed: scripts/setup.sh installs it (apt-get install nodejs)"
    }
  }

  /// Runs the script at `path` with `arguments` to its end, waiting without holding a
  /// thread of the cooperative pool; its exit status, standard output and standard error.
  public static func run(_ path: String, _ arguments: [String]) async throws
    -> (status: Int32, output: String, errors: String)
  {
    guard let executable else { throw Missing() }
    let captured = CapturedOutput(prefix: "node")
    defer { captured.remove() }
    let process = try ChildProcess(
      executable: executable, arguments: [path] + arguments,
      environment: ProcessInfo.processInfo.environment, output: captured.output,
      errors: captured.errors)
    let status = await process.exitStatus()
    return (status, captured.outputText, captured.errorText)
  }
}
