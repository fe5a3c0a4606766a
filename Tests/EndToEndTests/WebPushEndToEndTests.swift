import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Issue 22's whole path: a browser subscribed through the serving process's registration
/// route gets a theft alarm's text at once, then the photo as a follow-up that replaces it,
/// through real processes (FanoutWorker, PhotoWorker, WebPushWorker, ImageServeWorker, the
/// camera simulator) and the Web Push service double over HTTPS; the follow-up's signed
/// image URL then answers the photo.
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

    // The page's registration: the subscription as the browser gives it, plus the platform.
    let subscription = try await pushService.subscribe()
    let client = HTTPClient(caFile: nil, threadName: "e2e-client")
    defer { client.shutdown() }
    let registered = await client.send(
      HTTPClientRequest(
        url: "http://127.0.0.1:\(port)/api/v1/notifications/devices",
        headers: [("authorization", "Bearer \(session)"), ("content-type", "application/json")],
        body: Array(
          (#"{"platform":"webpush","endpoint":"\#(subscription.endpoint)","expirationTime":null,"#
            + #""keys":{"p256dh":"\#(subscription.keys.p256dh)","auth":"\#(subscription.keys.auth)"}}"#)
            .utf8), timeoutSeconds: 10))
    guard case .response(let status, _, _) = registered else {
      Issue.record("no answer to the registration: \(registered)")
      return
    }
    #expect(status == 201)

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
