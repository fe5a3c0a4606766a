import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// The operator command line as a process: help, misuse, and the directory commands.
@Suite struct CommandLineTests {
  func mowdeck(_ arguments: [String], database: TestDatabase? = nil) async throws -> (
    status: Int32, output: String
  ) {
    var environment = ProcessInfo.processInfo.environment
    if let database {
      environment = try WorkerProcess.environment(
        database: database, subjectPrefix: uniqueSubjectPrefix())
    }
    return try await runCommand(
      "mowdeck", arguments, environment: environment, timeout: .seconds(60))
  }

  @Test(arguments: [
    ["migrate"], ["fleet", "import"], ["user", "add"], ["mower", "grant"], ["device", "add"],
    ["session", "create"], ["publish"], ["replay"], ["check-decisions"], ["trace"], ["storage"],
  ])
  func everyCommandHasHelp(command: [String]) async throws {
    let result = try await mowdeck(command + ["--help"])
    #expect(result.status == 0)
    #expect(result.output.contains("usage: mowdeck " + command.joined(separator: " ")))
  }

  @Test(arguments: [
    (["frobnicate"], "unknown command"), (["fleet", "import"], "missing FILE"),
    (["user", "add", "--id", "u-1"], "--name is required"), (["trace", "not-a-uuid"], "UUID"),
    (["replay", "--timeout"], "--timeout needs a value"),
  ])
  func misuseExitsTwoWithAClearLine(arguments: [String], message: String) async throws {
    let result = try await mowdeck(arguments)
    #expect(result.status == 2)
    #expect(result.output.contains(message), "\(result.output)")
  }

  @Test func directoryCommandsWorkAndFleetImportIsIdempotent() async throws {
    let db = try await TestDatabase.make()
    let fleet = TestServers.fixture("fleet40.fleet.json")
    for _ in 0..<2 {
      let imported = try await mowdeck(["fleet", "import", fleet], database: db)
      #expect(imported.status == 0, "\(imported.output)")
    }
    #expect(try await db.count("SELECT count(*) AS n FROM devices") == 71)
    #expect(
      try await mowdeck(["user", "add", "--id", "u-x", "--name", "X"], database: db).status == 0)
    #expect(
      try await mowdeck(["mower", "grant", "--mower", "m-x", "--user", "u-x"], database: db).status
        == 0)
    let badToken = try await mowdeck(
      ["device", "add", "--user", "u-x", "--token", "abc"], database: db)
    #expect(badToken.status == 2)
    #expect(badToken.output.contains("64 hexadecimal digits"))
    let session = try await mowdeck(["session", "create", "--user", "u-x"], database: db)
    #expect(session.status == 0)
    let token = session.output.split(separator: "\n").last.map(String.init) ?? ""
    #expect(token.count == 64)
    #expect(try await Directory(pool: db.pool).user(forSessionToken: token) == "u-x")
    let storage = try await mowdeck(["storage"], database: db)
    #expect(storage.status == 0)
    #expect(storage.output.contains("events by type and age"))
    // The history table names each table with its row count (an empty schema: 0).
    #expect(
      storage.output.split(separator: "\n").contains {
        $0.hasPrefix("ingress_messages") && $0.split(separator: " ").dropFirst().first == "0"
      })
  }
}
