import Events
import Foundation
import Infrastructure

struct MigrateCommand: Command {
  static let path = ["migrate"]
  static let usage = "mowdeck migrate"
  static let summary = "apply pending database migrations (safe to run concurrently)"

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let applied = try await Migrator(pool: context.pool(), logger: context.logger).migrate()
    say(applied.isEmpty ? "schema is current" : "applied migrations \(applied)")
  }
}

struct FleetImportCommand: Command {
  static let path = ["fleet", "import"]
  static let usage = "mowdeck fleet import FILE"
  static let summary = "import users, mowers, grants and devices from a fleet JSON file"

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let path = try arguments.positional(0, "FILE")
    let fleet: FleetFile
    do {
      fleet = try FleetFile.load(path: path)
    } catch {
      throw UsageError("cannot read fleet file \(path): \(error)")
    }
    try await Directory(pool: context.pool()).importFleet(fleet)
    say(
      "imported \(fleet.users.count) users, \(fleet.mowers.count) mowers, "
        + "\(fleet.grants.count) grants, \(fleet.devices.count) devices")
  }
}

struct UserAddCommand: Command {
  static let path = ["user", "add"]
  static let usage = "mowdeck user add --id USER_ID --name NAME"
  static let summary = "add a user (or rename one)"

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let id = try arguments.required("id")
    try await Directory(pool: context.pool()).addUser(id: id, name: try arguments.required("name"))
    say("user \(id)")
  }
}

struct MowerGrantCommand: Command {
  static let path = ["mower", "grant"]
  static let usage = "mowdeck mower grant --mower MOWER_ID --user USER_ID [--name MOWER_NAME]"
  static let summary = "let a user see a mower's alarms"

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let mower = try arguments.required("mower")
    let user = try arguments.required("user")
    let directory = Directory(pool: context.pool())
    if let name = arguments.option("name") { try await directory.addMower(id: mower, name: name) }
    try await directory.grant(mowerID: mower, userID: user)
    say("granted \(mower) to \(user)")
  }
}

struct SessionCreateCommand: Command {
  static let path = ["session", "create"]
  static let usage = "mowdeck session create --user USER_ID"
  static let summary = "create a web session and print its bearer token"

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    do {
      say(
        try await Directory(pool: context.pool()).createSession(
          userID: try arguments.required("user")))
    } catch let failure as Directory.Failure {
      throw UsageError(failure.description)
    }
  }
}
