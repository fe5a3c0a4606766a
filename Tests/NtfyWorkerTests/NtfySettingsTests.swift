import Events
import Foundation
import Infrastructure
import Synchronization
import Testing

@testable import NtfyWorker

/// What the worker reads of the configuration, and the token kept out of every log line.
@Suite struct NtfySettingsTests {
  func settings(_ environment: [String: String]) throws -> NtfySettings {
    try NtfySettings(configuration: Configuration.load(from: environment))
  }

  @Test func theServerTokenAndInboxAreRead() throws {
    let read = try settings([
      "MOWDECK_NOTIFICATIONS_NTFY_URL": "https://ntfy.example/base/",
      "MOWDECK_NOTIFICATIONS_NTFY_TOKEN": "tk_abc",
      "MOWDECK_NOTIFICATIONS_IMAGE_BASE_URL": "https://owner.example/",
    ])
    #expect(
      read
        == NtfySettings(
          serverURL: "https://ntfy.example/base", token: "tk_abc",
          inboxURL: "https://owner.example/inbox"))
    // The app URL stands in for the image base URL, as for image links.
    let fromApp = try settings([
      "MOWDECK_NOTIFICATIONS_NTFY_URL": "http://ntfy.lan",
      "MOWDECK_NOTIFICATIONS_APP_URL": "https://app.example",
    ])
    #expect(fromApp.inboxURL == "https://app.example/inbox" && fromApp.token == nil)
    #expect(try settings(["MOWDECK_NOTIFICATIONS_NTFY_URL": "http://ntfy.lan"]).inboxURL == nil)
  }

  @Test func noServerOrABadTokenIsAConfigurationError() {
    #expect(
      throws: ConfigurationError(
        variable: "MOWDECK_NOTIFICATIONS_NTFY_URL", problem: "is not set")
    ) { try settings([:]) }
    #expect(throws: ConfigurationError.self) {
      try settings([
        "MOWDECK_NOTIFICATIONS_NTFY_URL": "https://ntfy.example",
        "MOWDECK_NOTIFICATIONS_NTFY_TOKEN": "tk_a\u{7F}b",
      ])
    }
  }

  @Test func aBearerTokenNeverReachesALogLine() {
    let lines = Mutex<[String]>([])
    let logger = Logger(component: "test", sink: { line in lines.withLock { $0.append(line) } })
    for token in ["tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2", "s3cret"] {
      let request = NtfyRequest.make(
        NtfyRequestTests.delivery(), imageURL: nil,
        settings: NtfySettings(serverURL: "https://ntfy.example", token: token, inboxURL: nil))
      logger.error("publish failed", ["headers": "\(request.headers)"])
      logger.error("Authorization: Bearer \(token)")
      #expect(!lines.withLock { $0 }.joined().contains(token), "\(token)")
    }
  }
}
