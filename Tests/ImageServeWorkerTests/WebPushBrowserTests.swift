import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// The browser's side of Web Push: the VAPID key route, the page offering "Notify me on
/// this browser" in headless Chromium, and the service worker's push handler run in Node.js
/// with a decrypted message (no real push service can reach a test browser).
@Suite struct WebPushBrowserTests {
  static let node = HeadlessBrowser.node

  /// The test PKI's P-256 key (the APNs one) serves as a VAPID key.
  static func keySettings() throws -> [String: String] {
    [
      "MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH": try APNsSandboxHarness.pki()
        .appendingPathComponent("apns-key.p8").path
    ]
  }

  @Test func theKeyRouteAnswersThePublicKeyOrNothing() async throws {
    let settings = try Self.keySettings()
    let pem = try #require(
      FileManager.default.contents(
        atPath: settings["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"]!))
    let expected = try #require(ES256SigningKey(pem: Array(pem))).publicKeyUncompressed
    try await ServeFixture.with(settings) { fixture in
      let answer = try await fixture.get(WebPushKeyRoute.pattern)
      #expect(answer.status == 200)
      let key = try #require(answer.json?["public_key"]?.string)
      #expect(Base64URL.decode(key) == expected)
    }
    try await ServeFixture.with { fixture in
      let status = try await fixture.get(WebPushKeyRoute.pattern).status
      #expect(status == 404)
    }
    try await ServeFixture.with(["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH": "/nonexistent"]) {
      fixture in
      let status = try await fixture.get(WebPushKeyRoute.pattern).status
      #expect(status == 404)
    }
  }

  @Test(
    .enabled(
      if: InboxPageTests.chromium != nil, "chromium is not installed (apt-get install chromium)"))
  func thePageOffersWebPushOnlyWhenTheServerHasAKey() async throws {
    let button = "<button id=\"subscribe\" type=\"button\""
    try await ServeFixture.with(try Self.keySettings()) { fixture in
      try await fixture.seedDirectory()
      let token = try await fixture.session(for: "u1")
      let dom = try await InboxPageTests.render(
        "http://127.0.0.1:\(fixture.port)/inbox#token=\(token)")
      #expect(dom.contains(button + ">Notify me on this browser</button>"), "\(dom)")
    }
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let token = try await fixture.session(for: "u1")
      let dom = try await InboxPageTests.render(
        "http://127.0.0.1:\(fixture.port)/inbox#token=\(token)")
      #expect(dom.contains(button + " hidden=\"\">"), "\(dom)")
    }
  }

  @Test(.enabled(if: node != nil, "node is not installed (apt-get install nodejs)"))
  func theServiceWorkerShowsTheAlarmThenReplacesItQuietlyWithThePhoto() async throws {
    try await ServeFixture.with { fixture in
      let script = try await fixture.get(ServiceWorkerScript.pattern)
      #expect(script.status == 200)
      #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
      let shown = try await Self.runPushes(
        worker: String(decoding: script.body, as: UTF8.self),
        messages: [
          #"{"notification_id":"n-1","title":"Robbie was lifted","body":"Someone lifted the mower.","kind":"mower_lifted","tag":"n-1"}"#,
          #"{"notification_id":"n-1","title":"Robbie was lifted","body":"Someone lifted the mower.","kind":"mower_lifted","tag":"n-1","image_url":"https://owner.example/api/v1/notifications/push-images/n-1?e=1&s=x"}"#,
          "not json",
        ])
      #expect(shown.count == 2, "\(shown)")
      #expect(shown[0].title == "Robbie was lifted")
      #expect(shown[0].tag == "n-1" && shown[1].tag == "n-1")
      #expect(shown[0].image == nil && shown[0].silent != true)
      #expect(
        shown[1].image == "https://owner.example/api/v1/notifications/push-images/n-1?e=1&s=x")
      #expect(shown[1].silent == true && shown[1].renotify == false)
    }
  }

  struct Shown: Decodable {
    let title: String
    let tag: String
    let image: String?
    let silent: Bool?
    let renotify: Bool?
  }

  /// Runs the service worker in Node.js with a stand-in `self`, dispatches one `push` event
  /// per message (as the browser does after decrypting), and returns what it asked to show.
  static func runPushes(worker: String, messages: [String]) async throws -> [Shown] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sw-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let harness = """
      const fs = require("fs");
      const shown = [];
      const listeners = {};
      global.self = {
        addEventListener: (type, listener) => { listeners[type] = listener; },
        registration: {
          showNotification: (title, options) => {
            shown.push(Object.assign({ title: title }, options)); return Promise.resolve();
          },
        },
        clients: { openWindow: () => Promise.resolve() },
      };
      eval(fs.readFileSync(process.argv[2], "utf8"));
      const waits = [];
      for (const text of JSON.parse(fs.readFileSync(process.argv[3], "utf8"))) {
        listeners.push({
          data: { json: () => JSON.parse(text) },
          waitUntil: (promise) => waits.push(promise),
        });
      }
      Promise.all(waits).then(() => console.log(JSON.stringify(shown)));
      """
    let files = (
      harness: directory.appendingPathComponent("harness.js"),
      worker: directory.appendingPathComponent("sw.js"),
      messages: directory.appendingPathComponent("messages.json"),
      output: directory.appendingPathComponent("out.json")
    )
    try harness.write(to: files.harness, atomically: true, encoding: .utf8)
    try worker.write(to: files.worker, atomically: true, encoding: .utf8)
    try Data(WireCoding.encode(messages)).write(to: files.messages)
    let process = try ChildProcess(
      executable: node!, arguments: [files.harness.path, files.worker.path, files.messages.path],
      environment: ProcessInfo.processInfo.environment, output: files.output.path,
      errors: "/dev/null")
    #expect(await process.exitStatus() == 0)
    return try WireCoding.decode(
      [Shown].self, from: Array(FileManager.default.contents(atPath: files.output.path) ?? Data()))
  }
}
