import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// The command line refuses what it does not know, exit status 2 with a line naming the
/// word, instead of quietly running with a default (`--enviroment sandbox` registered a
/// production device).
@Suite struct StrictArgumentsTests {
  @Test(arguments: [
    (["storage", "--jsn"], "unknown option --jsn (did you mean --json? known: --json, --help)"),
    (["storage", "-j"], "unknown option -j (known: --json, --help)"),
    (["migrate", "--force"], "unknown option --force (known: --help)"),
    (
      ["device", "list", "--user", "u-1", "extra"], "unexpected argument extra (takes no arguments)"
    ),
    (
      ["trace", "2f1d0c4e-55aa-4a43-9bb5-0f6f2b1f6c1e", "more"],
      "unexpected argument more (takes ALARM_ID only)"
    ),
    (["check-decisions", "a", "b", "c"], "unexpected argument c (takes ALARMS EXPECTED only)"),
    (["storage", "--json=yes"], "--json takes no value"),
    (["device", "list", "--user", "u-1", "--user", "u-2"], "--user is given twice"),
    (["session", "revoke", "--user", "--all"], "--user needs a value"),
    (["alarm", "list", "--mower", "m-1", "--since", "yesterday"], "--since is not an RFC 3339"),
    (["session", "revoke"], "give a TOKEN, or --user USER_ID --all"),
    (["device", "remove", "--user", "u-1", "not-a-uuid"], "DEVICE_ID must be a UUID"),
  ])
  func misuseExitsTwoNamingTheWord(arguments: [String], message: String) async throws {
    let result = try await mowdeck(arguments)
    #expect(result.status == 2)
    let lines = result.output.split(separator: "\n")
    #expect(lines.contains { $0.hasPrefix("mowdeck: " + message) }, "\(result.output)")
    #expect(lines.contains { $0.hasPrefix("usage: mowdeck " + arguments[0]) })
  }

  /// The example: a misspelt `--environment` no longer registers a production device.
  @Test func aMisspeltOptionChangesNothing() async throws {
    let db = try await TestDatabase.make()
    try await Directory(pool: db.pool).addUser(id: "u-x", name: "X")
    let result = try await mowdeck(
      [
        "device", "add", "--user", "u-x", "--token", String(repeating: "a", count: 64),
        "--enviroment", "sandbox",
      ], database: db)
    #expect(result.status == 2)
    #expect(
      result.output.contains(
        "unknown option --enviroment (did you mean --environment? known: --user, --platform,"),
      "\(result.output)")
    #expect(try await db.count("SELECT count(*) AS n FROM devices") == 0)
  }

  @Test(arguments: [["--version"], ["version"]])
  func versionIsPrinted(arguments: [String]) async throws {
    let result = try await mowdeck(arguments)
    #expect(result.status == 0)
    #expect(result.output == "mowdeck \(BuildVersion.version)\n")
  }

  /// Each command's usage shows exactly the options it accepts (its `--help` lists them), for
  /// every command the overview names: an option added to one and not the other fails here.
  @Test func everyUsageShowsExactlyTheAcceptedOptions() async throws {
    let overview = try await mowdeck(["--help"])
    #expect(overview.output.contains("--version"))
    let names = overview.output.split(separator: "\n").drop { $0 != "commands:" }.dropFirst()
      .map { $0.prefix(20).trimmingCharacters(in: .whitespaces) }.filter {
        !$0.isEmpty && !$0.hasPrefix("--")
      }
    #expect(names.contains("alarm list") && names.contains("session revoke"), "\(names)")
    for name in names {
      let help = try await mowdeck(name.split(separator: " ").map(String.init) + ["--help"])
      #expect(help.status == 0)
      let usage = help.output.components(separatedBy: "\n\n")[0]
      let shown = Set(usage.matches(of: #/--[a-z0-9-]+/#).map { String($0.output) })
      let listed = help.output.split(separator: "\n").first { $0.hasPrefix("options: ") }
        .map { Set($0.dropFirst(9).components(separatedBy: ", ")) }
      #expect(listed == shown.union(["--help"]), "mowdeck \(name): \(help.output)")
    }
  }
}
