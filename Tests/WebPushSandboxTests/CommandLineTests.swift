import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import WebPushSandbox

@Suite struct CommandLineTests {
  @Test func optionsAreRead() throws {
    let options = try SandboxOptions.parse([
      "--listen", "0.0.0.0:8443", "--cert", "c.pem", "--key", "k.pem", "--record", "r.jsonl",
      "--endpoint-host", "Push.Local",
    ])
    #expect(options.listen == "0.0.0.0:8443")
    #expect(options.certificatePath == "c.pem")
    #expect(options.privateKeyPath == "k.pem")
    #expect(options.recordPath == "r.jsonl")
    #expect(options.endpointHost == "push.local")
  }

  @Test func badOptionsAreRefused() {
    let bad: [[String]] = [
      ["--key", "k.pem"], ["--cert", "c.pem"],
      ["--cert", "c", "--key", "k", "--listen", "nowhere"],
      ["--cert", "c", "--key", "k", "--endpoint-host", "a/b"],
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
      "WebPushSandbox", ["--cert", "c.pem", "--bogus"],
      environment: ProcessInfo.processInfo.environment, timeout: .seconds(30))
    #expect(status == 2)
    #expect(output == "WebPushSandbox: unknown option --bogus (see --help)\n")
  }

  @Test func helpExitsWith0() async throws {
    let (status, output) = try await runCommand(
      "WebPushSandbox", ["--help"], environment: ProcessInfo.processInfo.environment,
      timeout: .seconds(30))
    #expect(status == 0)
    #expect(output.hasPrefix("usage: WebPushSandbox"))
  }

  @Test func topicsAndTTLsAreCheckedAsPushServicesDo() {
    #expect(PushCheck.isValidTopic("mower-42_A"))
    #expect(PushCheck.isValidTopic(String(repeating: "z", count: 32)))
    #expect(!PushCheck.isValidTopic(String(repeating: "z", count: 33)))
    #expect(!PushCheck.isValidTopic(""))
    #expect(!PushCheck.isValidTopic("a+b"))
    #expect(PushCheck.ttl("0") == 0)
    #expect(PushCheck.ttl("2419200") == 2_419_200)
    #expect(PushCheck.ttl("-1") == nil)
    #expect(PushCheck.ttl("+1") == nil)
    #expect(PushCheck.ttl("1.5") == nil)
    #expect(PushCheck.ttl("") == nil)
  }

  /// The sandbox's record line and the harness's reader agree, nulls included.
  @Test func recordLinesRoundTripThroughTheHarnessType() throws {
    let line = RecordLine(
      time: Date(timeIntervalSince1970: 1_777_000_000.25), subscription: "abc", status: 400,
      error: "no TTL header", ttl: nil, urgency: nil, topic: nil, vapidSub: "mailto:a@b",
      vapidAud: "https://localhost:1", vapidJWT: "eyJ0eXAi.e30.c2ln", payload: nil,
      payloadBytes: 120)
    let bytes = WireCoding.encode(line)
    let text = String(decoding: bytes, as: UTF8.self)
    for key in ["ttl", "urgency", "topic", "payload"] { #expect(text.contains("\"\(key)\":null")) }
    let read = try WireCoding.decode(WebPushSandboxHarness.RecordLine.self, from: bytes)
    #expect(read.subscription == "abc")
    #expect(read.status == 400)
    #expect(read.error == "no TTL header")
    #expect(read.vapidSub == "mailto:a@b")
    #expect(read.vapidJWT == "eyJ0eXAi.e30.c2ln")
    #expect(read.payloadBytes == 120)
    #expect(read.time == line.time)
  }
}
