import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Issue 22's whole path: a browser subscribed through `/inbox` (headless Chromium clicking
/// "Notify me on this browser") gets a theft alarm's text at once, then the photo as a
/// follow-up that replaces it in place, through real processes (FanoutWorker, PhotoWorker,
/// WebPushWorker, ImageServeWorker, the camera simulator), the Web Push service double over
/// HTTPS and the page's own service worker; the follow-up's signed image URL then answers
/// the photo. What stands in for the browser's push service is told in `BrowserPushDriver`.
@Suite struct WebPushEndToEndTests {
  @Test func aBrowserGetsTheAlarmAtOnceAndThePhotoAsAFollowUp() async throws {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u-1", name: "Owner")
    try await directory.addMower(id: "m-1", name: "Robbie")
    try await directory.grant(mowerID: "m-1", userID: "u-1")
    let session = try await directory.createSession(userID: "u-1")
    let base = try await PipelineProcesses.start(
      database: db, recordName: "e2e-webpush", appURL: "https://localhost",
      simulatorArguments: ["--latency-ms", "300-600"])
    let webRecord = FileManager.default.temporaryDirectory.appendingPathComponent(
      "e2e-webpush-\(UUID()).jsonl")
    let pushService = try await WebPushSandboxHarness.start(
      environment: base.environment, record: webRecord)
    var processes: [WorkerProcess] = [base.sandbox.process, base.simulator]
    defer {
      for process in processes { process.stop() }
      pushService.stop()
    }
    var environment = base.environment
    environment["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"] =
      pushService.pki.appendingPathComponent("apns-key.p8").path
    environment["MOWDECK_NOTIFICATIONS_WEBPUSH_SUBJECT"] = "mailto:ops@mowdeck.example"
    environment["MOWDECK_NOTIFICATIONS_WEBPUSH_CA_FILE"] = pushService.caFile
    environment["MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS"] = "localhost"
    let serving = try WorkerProcess("ImageServeWorker", environment: environment)
    processes.append(serving)
    let port = try await listeningPort(of: serving)
    // The photo URLs name the serving process, as the owner's public origin would.
    environment["MOWDECK_NOTIFICATIONS_IMAGE_BASE_URL"] = "http://127.0.0.1:\(port)"
    for name in ["FanoutWorker", "PhotoWorker", "WebPushWorker"] {
      processes.append(try WorkerProcess(name, environment: environment))
    }

    // A person opens the inbox in Chromium and clicks "Notify me on this browser": the page
    // installs the service worker, subscribes with the server's VAPID key and registers the
    // subscription with its session.
    let vapidPEM = try #require(
      FileManager.default.contents(
        atPath: environment["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"]!))
    let serverKey = try #require(ES256SigningKey(pem: Array(vapidPEM))).publicKeyUncompressed
    let subscription = try await pushService.subscribe(applicationServerKey: serverKey)
    let browser = try BrowserPushDriver(
      BrowserPushDriver.Settings(
        pageURL: "http://127.0.0.1:\(port)/inbox#token=\(session)",
        origin: "http://127.0.0.1:\(port)", expectedKey: Base64URL.encode(serverKey),
        subscription: subscription, record: webRecord.path, pushes: 2))
    defer { browser.stop() }
    let subscribed = try await browser.wait(for: "subscribed")
    #expect(
      subscribed.status == "This browser will be notified.", "\(subscribed) \(browser.errors())")
    #expect(subscribed.calls?.map(\.key) == [Base64URL.encode(serverKey)])
    #expect(subscribed.calls?.first?.userVisibleOnly == true)
    let devices = try await db.pool.query(
      "SELECT platform, token, active FROM devices WHERE user_id = 'u-1'")
    #expect(devices.count == 1)
    #expect(try devices.first?.string("platform") == "webpush")
    #expect(try devices.first?.string("token") == subscription.endpoint)

    let publishedAt = Date()
    let published = try await runCommand(
      "mowdeck", ["publish", "--mower", "m-1", "--kind", "mower_lifted", "--name", "Robbie"],
      environment: environment, timeout: .seconds(60))
    #expect(published.status == 0, "\(published.output)")
    let lines = try await pushService.waitForRecordLines(2, timeout: .seconds(60))
    #expect(lines.allSatisfy { $0.status == 201 && $0.error == nil }, "\(lines)")
    // The text goes at once (the fan-out rings the worker), never after the camera.
    let textAfter = lines[0].time.timeIntervalSince(publishedAt)
    #expect(textAfter < 5, "the alarm's push came \(textAfter) s after publishing")
    print(
      "web push: text after \(textAfter) s, "
        + "photo after \(lines[1].time.timeIntervalSince(publishedAt)) s")
    let messages = try lines.map {
      try WireCoding.decode(AlarmMessage.self, from: Array(($0.payload ?? "").utf8))
    }
    #expect(messages[0].title == "Robbie was lifted")
    #expect(messages[0].imageURL == nil)
    let followUp = messages[1]
    #expect(followUp.tag == messages[0].tag && lines[0].topic == lines[1].topic)
    let imageURL = try #require(followUp.imageURL)
    #expect(imageURL.hasPrefix("http://127.0.0.1:\(port)/api/v1/notifications/push-images/"))
    // The browser showed the alarm's text, then the same notification (same tag) again,
    // quietly, with the photo: one notification, replaced in place.
    let first = try await browser.wait(for: "push 1")
    let second = try await browser.wait(for: "push 2")
    #expect(await browser.exitStatus() == 0, "\(browser.lines()) \(browser.errors())")
    print(
      "browser: push 1 handed over \(first.handedOver ?? 0) time(s), "
        + "push 2 \(second.handedOver ?? 0)")
    let shownFirst = try #require(first.notifications, "\(first)")
    let shownSecond = try #require(second.notifications, "\(second)")
    #expect(shownFirst.count == 1 && shownSecond.count == 1, "\(shownFirst) \(shownSecond)")
    #expect(shownFirst.first?.title == "Robbie was lifted")
    #expect(shownFirst.first?.tag == messages[0].tag && shownFirst.first?.image == nil)
    #expect(shownSecond.first?.tag == messages[0].tag)
    #expect(shownSecond.first?.image == imageURL && shownSecond.first?.silent == true)
    // The browser shows the photo from the owner's server with the signed URL alone.
    let photo = FileManager.default.temporaryDirectory.appendingPathComponent(
      "e2e-webpush-\(UUID()).jpg")
    defer { try? FileManager.default.removeItem(at: photo) }
    let fetched = try await runShellOffThePool(
      "curl -s -o '\(photo.path)' -w '%{http_code} %{content_type}' '\(imageURL)'")
    #expect(fetched == "200 image/jpeg", "\(fetched)")
    let jpeg = [UInt8](FileManager.default.contents(atPath: photo.path) ?? Data())
    #expect(jpeg.prefix(2) == [0xFF, 0xD8])
  }

  /// The message as the service worker reads it.
  struct AlarmMessage: Decodable {
    let title: String
    let tag: String
    let imageURL: String?
    enum CodingKeys: String, CodingKey {
      case title, tag
      case imageURL = "image_url"
    }
  }
}
