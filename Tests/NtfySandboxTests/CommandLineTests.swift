import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import NtfySandbox

@Suite struct CommandLineTests {
  @Test func optionsAreRead() throws {
    let options = try SandboxOptions.parse([
      "--listen", "0.0.0.0:8443", "--cert", "c.pem", "--key", "k.pem", "--record", "r.jsonl",
      "--token", "tk_abc",
    ])
    #expect(options.listen == "0.0.0.0:8443")
    #expect(options.certificatePath == "c.pem")
    #expect(options.privateKeyPath == "k.pem")
    #expect(options.recordPath == "r.jsonl")
    #expect(options.token == "tk_abc")
    #expect(try SandboxOptions.parse(["--cert", "c", "--key", "k"]).token == nil)
  }

  @Test func badOptionsAreRefused() {
    let bad: [[String]] = [
      ["--key", "k.pem"], ["--cert", "c.pem"],
      ["--cert", "c", "--key", "k", "--listen", "nowhere"],
      ["--cert", "c", "--key", "k", "--token", "two words"],
      ["--cert", "c", "--key", "k", "--token", ""],
      ["--cert", "c", "--key", "k", "--x"],
      ["--cert"],
    ]
    for arguments in bad {
      #expect(throws: SandboxOptions.Invalid.self, "\(arguments)") {
        try SandboxOptions.parse(arguments)
      }
    }
  }

  @Test func theProcessExitsWith2AndOneLineForABadOption() async throws {
    let (status, output) = try await runCommand(
      "NtfySandbox", ["--cert", "c.pem", "--bogus"],
      environment: ProcessInfo.processInfo.environment, timeout: .seconds(30))
    #expect(status == 2)
    #expect(output == "NtfySandbox: unknown option --bogus (see --help)\n")
  }

  @Test func helpExitsWith0() async throws {
    let (status, output) = try await runCommand(
      "NtfySandbox", ["--help"], environment: ProcessInfo.processInfo.environment,
      timeout: .seconds(30))
    #expect(status == 0)
    #expect(output.hasPrefix("usage: NtfySandbox"))
    #expect(output.contains("X-Sequence-ID"))
  }
}
