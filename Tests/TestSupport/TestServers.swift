import Events
import Foundation
import Infrastructure

/// The PostgreSQL and nats-server of this test run, started once by `scripts/test.sh`
/// (see `scripts/servers.sh`) and named by `MOWDECK_TEST_DATABASE_URL` and
/// `MOWDECK_TEST_NATS_URL`. Every test takes its own schema and subject prefix from them.
public enum TestServers {
  public struct Missing: Error, CustomStringConvertible {
    public let variable: String
    public var description: String {
      "\(variable) is not set: run the tests with scripts/test.sh, which starts the servers"
    }
  }

  public static func databaseURL() throws -> String {
    guard let url = ProcessInfo.processInfo.environment["MOWDECK_TEST_DATABASE_URL"] else {
      throw Missing(variable: "MOWDECK_TEST_DATABASE_URL")
    }
    return url
  }

  public static func natsURL() throws -> String {
    guard let url = ProcessInfo.processInfo.environment["MOWDECK_TEST_NATS_URL"] else {
      throw Missing(variable: "MOWDECK_TEST_NATS_URL")
    }
    return url
  }

  /// Where `swift build` put the executables the process tests start.
  public static var binDirectory: URL {
    if let dir = ProcessInfo.processInfo.environment["MOWDECK_BIN_DIR"] {
      return URL(fileURLWithPath: dir)
    }
    // Tests/TestSupport/TestServers.swift -> repository root -> .build/debug
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(".build/debug")
  }

  /// A path inside the repository.
  public static func repositoryPath(_ relative: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(relative).path
  }

  /// The repository's own test fixtures.
  public static func fixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures").appendingPathComponent(name).path
  }

  public static let logger = Logger(component: "test", minimumLevel: .warning)
}
