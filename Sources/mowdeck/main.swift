import Events
import Foundation
import Infrastructure

let commands: [any Command.Type] = [
  MigrateCommand.self, FleetImportCommand.self, UserAddCommand.self, MowerGrantCommand.self,
  DeviceAddCommand.self, DeviceListCommand.self, SessionCreateCommand.self, PublishCommand.self,
  ReplayCommand.self,
  CheckDecisionsCommand.self, TraceCommand.self, StorageCommand.self,
]

@MainActor func overview() -> String {
  var text =
    "usage: mowdeck <command> [options]   (mowdeck <command> --help for more)\n\ncommands:\n"
  for command in commands {
    let name = command.path.joined(separator: " ")
    text += "  " + name.padding(toLength: 18, withPad: " ", startingAt: 0) + command.summary + "\n"
  }
  return text
}

let words = Array(CommandLine.arguments.dropFirst())
guard
  let command = commands.first(where: { words.starts(with: $0.path) })
else {
  if words.isEmpty || words == ["--help"] || words == ["help"] {
    say(overview())
    exit(words.isEmpty ? 2 : 0)
  }
  FileHandle.standardError.write(
    Data("mowdeck: unknown command \"\(words.joined(separator: " "))\"\n\n\(overview())".utf8))
  exit(2)
}

let arguments: Arguments
do {
  arguments = try Arguments(
    Array(words.dropFirst(command.path.count)), flagNames: command.flagNames)
} catch {
  FileHandle.standardError.write(Data("mowdeck: \(error)\nusage: \(command.usage)\n".utf8))
  exit(2)
}
if arguments.wantsHelp {
  say("usage: \(command.usage)\n\n\(command.summary)")
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
  FileHandle.standardError.write(Data("mowdeck: \(error)\nusage: \(command.usage)\n".utf8))
  exit(2)
} catch {
  FileHandle.standardError.write(Data("mowdeck: \(error)\n".utf8))
  exit(1)
}
