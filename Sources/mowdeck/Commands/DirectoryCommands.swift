import Events
import Foundation
import Infrastructure

struct MigrateCommand: Command {
  static let path = ["migrate"]
  static let usage = "mowdeck migrate"
  static let summary = "apply pending database migrations (safe to run concurrently)"
  static let grammar = Grammar()

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let applied = try await Migrator(pool: context.pool(), logger: context.logger).migrate()
    say(applied.isEmpty ? "schema is current" : "applied migrations \(applied)")
  }
}

struct FleetImportCommand: Command {
  static let path = ["fleet", "import"]
  static let usage = "mowdeck fleet import FILE"
  static let summary = "import users, mowers, grants and devices from a fleet JSON file"
  static let grammar = Grammar(positional: ["FILE"])

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
  static let grammar = Grammar(options: ["id", "name"])

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
  static let grammar = Grammar(options: ["mower", "user", "name"])

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
  static let grammar = Grammar(options: ["user"])

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

/// `mowdeck session revoke TOKEN` or `--user USER_ID --all`: the bearer stops working at once
/// (the inbox API answers 401), for a lost phone or a leaked token.
struct SessionRevokeCommand: Command {
  static let path = ["session", "revoke"]
  static let usage = "mowdeck session revoke TOKEN | --user USER_ID --all"
  static let summary = "end a web session, or every session of a user"
  static let grammar = Grammar(options: ["user"], flags: ["all"], positional: ["TOKEN"])

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let directory = Directory(pool: context.pool())
    if let token = arguments.positional.first {
      guard arguments.option("user") == nil, !arguments.flag("all") else {
        throw UsageError("give either a TOKEN or --user USER_ID --all, not both")
      }
      guard try await directory.revokeSession(token: token) else {
        throw CommandFailure("no live session has that token")
      }
      say("revoked 1 session")
      return
    }
    // `--all` spelt out: revoking every session of a user is not what a forgotten TOKEN means.
    guard let user = arguments.option("user"), arguments.flag("all") else {
      throw UsageError("give a TOKEN, or --user USER_ID --all")
    }
    do {
      let count = try await directory.revokeSessions(ofUser: user)
      say("revoked \(count) session\(count == 1 ? "" : "s") of \(user)")
    } catch let failure as Directory.Failure {
      throw UsageError(failure.description)
    }
  }
}
