import Events
import Foundation
import Infrastructure

let commands: [any Command.Type] = [
  MigrateCommand.self, FleetImportCommand.self, UserAddCommand.self, MowerGrantCommand.self,
  DeviceAddCommand.self, DeviceListCommand.self, DeviceRemoveCommand.self,
  SessionCreateCommand.self, SessionRevokeCommand.self, PublishCommand.self, ReplayCommand.self,
  CheckDecisionsCommand.self, TraceCommand.self, AlarmListCommand.self, StorageCommand.self,
]

@MainActor func overview() -> String {
  var text =
    "usage: mowdeck <command> [options]   (mowdeck <command> --help for more)\n\ncommands:\n"
  for command in commands {
    let name = command.path.joined(separator: " ")
    text += "  " + name.padding(toLength: 18, withPad: " ", startingAt: 0) + command.summary + "\n"
  }
  text += "  " + "--version".padding(toLength: 18, withPad: " ", startingAt: 0)
  return text + "print the version of mowdeck\n"
}

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data("mowdeck: \(message)\n".utf8))
  exit(status)
}

let words = Array(CommandLine.arguments.dropFirst())
if words == ["--version"] || words == ["version"] {
  say("mowdeck \(BuildVersion.version)")
  exit(0)
}
guard
  let command = commands.first(where: { words.starts(with: $0.path) })
else {
  if words.isEmpty || words == ["--help"] || words == ["-h"] || words == ["help"] {
    say(overview())
    exit(words.isEmpty ? 2 : 0)
  }
  fail("unknown command \"\(words.joined(separator: " "))\"\n\n\(overview())", status: 2)
}

let arguments: Arguments
do {
  arguments = try Arguments(Array(words.dropFirst(command.path.count)), grammar: command.grammar)
} catch {
  fail("\(error)\nusage: \(command.usage)", status: 2)
}
if arguments.wantsHelp {
  let known = command.grammar.knownNames.joined(separator: ", ")
  say("usage: \(command.usage)\n\n\(command.summary)\n\noptions: \(known)")
  exit(0)
}
let configuration = Configuration.loadOrExit(component: "mowdeck")
let context = CommandContext(
  configuration: configuration,
  logger: Logger(component: "mowdeck", minimumLevel: max(configuration.logLevel, .warning)))
do {
  try await command.run(arguments, context)
  exit(0)
} catch let error as UsageError {
  fail("\(error)\nusage: \(command.usage)", status: 2)
} catch {
  fail("\(error)", status: 1)
}
