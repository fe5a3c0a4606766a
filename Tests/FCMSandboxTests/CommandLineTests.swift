import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import FCMSandbox

@Suite struct CommandLineTests {
  static let required = [
    "--cert", "c.pem", "--key", "k.pem", "--public-key", "sa.pub.pem", "--client-email",
    "a@p.iam.gserviceaccount.com", "--project-id", "p",
  ]

  @Test func optionsAreRead() throws {
    let options = try SandboxOptions.parse(
      Self.required + [
        "--listen", "0.0.0.0:8443", "--record", "r.jsonl", "--host", "FCM.Local",
        "--token-lifetime", "60", "--accept-any-token",
      ])
    #expect(options.listen == "0.0.0.0:8443")
    #expect(options.certificatePath == "c.pem")
    #expect(options.privateKeyPath == "k.pem")
    #expect(options.publicKeyPath == "sa.pub.pem")
    #expect(options.clientEmail == "a@p.iam.gserviceaccount.com")
    #expect(options.projectID == "p")
    #expect(options.recordPath == "r.jsonl")
    #expect(options.host == "fcm.local")
    #expect(options.tokenLifetime == 60)
    #expect(options.acceptAnyToken)
    let defaults = try SandboxOptions.parse(Self.required)
    #expect(defaults.tokenLifetime == 3599)
    #expect(!defaults.acceptAnyToken)
    #expect(defaults.host == "localhost")
  }

  @Test func badOptionsAreRefused() {
    var bad: [[String]] = [
      Self.required + ["--listen", "nowhere"], Self.required + ["--host", "a/b"],
      Self.required + ["--token-lifetime", "0"], Self.required + ["--token-lifetime", "3601"],
      Self.required + ["--x"], ["--cert"],
    ]
    // Each required option left out.
    for index in stride(from: 0, to: Self.required.count, by: 2) {
      var arguments = Self.required
      arguments.removeSubrange(index...index + 1)
      bad.append(arguments)
    }
    for arguments in bad {
      #expect(throws: SandboxOptions.Invalid.self, "\(arguments)") {
        try SandboxOptions.parse(arguments)
      }
    }
  }

  @Test func theProcessExitsWith2AndOneLineForABadOption() async throws {
    let (status, output) = try await runCommand(
      "FCMSandbox", ["--cert", "c.pem", "--bogus"],
      environment: ProcessInfo.processInfo.environment, timeout: .seconds(30))
    #expect(status == 2)
    #expect(output == "FCMSandbox: unknown option --bogus (see --help)\n")
  }

  @Test func helpExitsWith0() async throws {
    let (status, output) = try await runCommand(
      "FCMSandbox", ["--help"], environment: ProcessInfo.processInfo.environment,
      timeout: .seconds(30))
    #expect(status == 0)
    #expect(output.hasPrefix("usage: FCMSandbox"))
    for route in ["POST /token ", "messages:send", "POST /tokens", "POST /token-endpoint"] {
      #expect(output.contains(route))
    }
  }

  /// The sandbox's record line and the harness's reader agree, nulls included.
  @Test func recordLinesRoundTripThroughTheHarnessType() throws {
    var line = RecordLine(
      route: .send, time: Date(timeIntervalSince1970: 1_777_000_000.25),
      http2: HTTP2StreamID(connection: 2, stream: 7))
    line.status = 404
    line.error = "UNREGISTERED"
    line.registrationToken = "abc:APA91b"
    line.message = .object(["token": .string("abc:APA91b")])
    let bytes = WireCoding.encode(line)
    let text = String(decoding: bytes, as: UTF8.self)
    for key in ["detail", "access_token", "expires_in", "iss", "scope", "aud", "project", "name"] {
      #expect(text.contains("\"\(key)\":null"), "\(key)")
    }
    let read = try WireCoding.decode(FCMRecordLine.self, from: bytes)
    #expect(read.route == "send")
    #expect(read.connection == 2 && read.stream == 7)
    #expect(read.status == 404)
    #expect(read.error == "UNREGISTERED")
    #expect(read.registrationToken == "abc:APA91b")
    #expect(read.message == line.message)
    #expect(read.time == line.time)
  }
}
