import Foundation
import Infrastructure

// A client that vanishes mid-answer must cost one connection, not the process.
signal(SIGPIPE, SIG_IGN)

let options: SandboxOptions
do {
  options = try SandboxOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch is SandboxOptions.HelpRequested {
  print(SandboxOptions.usage)
  exit(0)
} catch {
  FileHandle.standardError.write(Data("NtfySandbox: \(error)\n".utf8))
  exit(2)
}

let level = ProcessInfo.processInfo.environment["MOWDECK_LOG_LEVEL"].flatMap(Logger.Level.init)
let logger = Logger(component: "NtfySandbox", minimumLevel: level ?? .info)
let service: SandboxService
do {
  service = try SandboxService(options: options, logger: logger)
} catch {
  FileHandle.standardError.write(Data("NtfySandbox: \(error)\n".utf8))
  exit(1)
}
exit(await ServiceRunner.run(service, logger: logger))
