import Events
import Foundation
import Infrastructure

// A peer that vanishes mid-write must cost one connection, not the process.
signal(SIGPIPE, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "make-jwt" {
  do {
    print(try MakeJWT.run(Array(arguments.dropFirst())))
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("APNsSandbox make-jwt: \(error)\n".utf8))
    exit(2)
  }
}

let options: SandboxOptions
do {
  options = try SandboxOptions.parse(arguments)
} catch is SandboxOptions.HelpRequested {
  print(SandboxOptions.usage)
  exit(0)
} catch {
  FileHandle.standardError.write(Data("APNsSandbox: \(error)\n".utf8))
  exit(2)
}

let level = ProcessInfo.processInfo.environment["MOWDECK_LOG_LEVEL"].flatMap(Logger.Level.init)
let logger = Logger(component: "APNsSandbox", minimumLevel: level ?? .info)
exit(await ServiceRunner.run(SandboxService(options: options, logger: logger), logger: logger))
