import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Issues 22 and 23's whole path: one user with an iPhone, a browser, an Android phone (FCM)
/// and an ntfy topic, each registered as its app registers it. A theft alarm reaches every
/// one at once, and the photo reaches each: the iPhone's extension by the signed URL in the
/// push, the others by a follow-up that replaces the alarm's notification in place. Real
/// processes throughout (FanoutWorker, PhotoWorker, the four channel workers,
/// ImageServeWorker, the camera simulator) and the four push services' doubles over TLS;
/// the browser is headless Chromium on `/inbox` with the page's own service worker (what
/// stands in for its push service is told in `BrowserPushDriver`). No credential of any
/// channel appears in any worker's log.
@Suite struct EveryPlatformEndToEndTests {
  @Test func aTheftAlarmReachesEveryDeviceOfItsUserWithThePhoto() async throws {
    let stack = try await EveryPlatformStack.start()
    defer { stack.stop() }
    let serving = "http://127.0.0.1:\(stack.port)"

    // The iPhone app's registration, the Android app's, and an ntfy topic asked for.
    let iPhone = String(repeating: "5e", count: 32)
    #expect(
      try await stack.register(
        #"{"token":"\#(iPhone)","environment":"production"}"#,
        at: "/api/v1/notifications/apns-devices") == 201)
    let fcmToken = try await stack.fcm.makeToken()
    #expect(try await stack.register(#"{"platform":"fcm","token":"\#(fcmToken)"}"#) == 201)
    let ntfyAnswer = try await stack.registerAnswer(#"{"platform":"ntfy"}"#)
    let topic = try #require(ntfyAnswer.topic)
    #expect(ntfyAnswer.subscribeURL == stack.ntfy.url + "/" + topic)

    // A person opens the inbox in Chromium and clicks "Notify me on this browser": the page
    // installs the service worker, subscribes with the server's VAPID key and registers the
    // subscription with its session.
    let serverKey = try stack.vapidPublicKey()
    let subscription = try await stack.webPush.subscribe(applicationServerKey: serverKey)
    let browser = try BrowserPushDriver(
      BrowserPushDriver.Settings(
        pageURL: "\(serving)/inbox#token=\(stack.session)", origin: serving,
        expectedKey: Base64URL.encode(serverKey), subscription: subscription,
        record: stack.webPush.record.path, pushes: 2))
    defer { browser.stop() }
    let subscribed = try await browser.wait(for: "subscribed")
    #expect(
      subscribed.status == "This browser will be notified.", "\(subscribed) \(browser.errors())")
    #expect(subscribed.calls?.map(\.key) == [Base64URL.encode(serverKey)])
    #expect(subscribed.calls?.first?.userVisibleOnly == true)
    let platforms = try await stack.db.pool.query(
      "SELECT platform FROM devices WHERE user_id = 'u-1' AND active ORDER BY platform")
    #expect(try platforms.map { try $0.string("platform") } == ["apns", "fcm", "ntfy", "webpush"])

    let publishedAt = Date()
    let published = try await runCommand(
      "mowdeck", ["publish", "--mower", "m-1", "--kind", "mower_lifted", "--name", "Robbie"],
      environment: stack.environment, timeout: .seconds(60))
    #expect(published.status == 0, "\(published.output)")

    // Every platform: the text at once (never after the camera), then the photo.
    let webPush = try await stack.webPush.waitForRecordLines(2, timeout: .seconds(60))
    let fcm = try await stack.fcmSends(2)
    let ntfy = try await stack.ntfyPublishes(2, topic: topic)
    let apns = try await stack.apnsPushes(1)
    var texts: [String: Date] = [
      "apns": apns[0].time, "webpush": webPush[0].time, "fcm": fcm[0].time,
      "ntfy": ntfy[0].time,
    ]
    for (platform, time) in texts.sorted(by: { $0.key < $1.key }) {
      let after = time.timeIntervalSince(publishedAt)
      #expect(after < 5, "the alarm's \(platform) push came \(after) s after publishing")
    }
    texts["webpush photo"] = webPush[1].time
    texts["fcm photo"] = fcm[1].time
    texts["ntfy photo"] = ntfy[1].time
    print(
      "every platform, seconds after publishing: "
        + texts.sorted { $0.value < $1.value }.map {
          "\($0.key) \(String(format: "%.2f", $0.value.timeIntervalSince(publishedAt)))"
        }.joined(separator: ", "))

    // The iPhone: one push, its extension fetches the photo by the URL it carries.
    #expect(apns.count == 1 && apns[0].token == iPhone && apns[0].status == 200)
    let apnsImage = try #require(apns[0].imageURL, "the iPhone's push carries the image URL")
    #expect(apns[0].title == "Robbie was lifted")

    // The browser: the text, then the same notification (same tag and Topic) with the photo.
    #expect(webPush.allSatisfy { $0.status == 201 && $0.error == nil }, "\(webPush)")
    let messages = try webPush.map {
      try WireCoding.decode(WebPushMessage.self, from: Array(($0.payload ?? "").utf8))
    }
    #expect(messages[0].title == "Robbie was lifted" && messages[0].imageURL == nil)
    #expect(messages[1].tag == messages[0].tag && webPush[0].topic == webPush[1].topic)
    let browserImage = try #require(messages[1].imageURL)
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
    #expect(shownSecond.first?.image == browserImage && shownSecond.first?.silent == true)

    // The Android phone: the text, then the same tag with the image and its URL in data.
    #expect(fcm.allSatisfy { $0.status == 200 && $0.registrationToken == fcmToken })
    #expect(fcm[0].message.notification.title == "Robbie was lifted")
    #expect(fcm[0].message.android.notification.image == nil)
    #expect(fcm[0].message.data["image_url"] == nil)
    #expect(fcm[0].message.android.priority == "HIGH")
    #expect(fcm[1].message.android.notification.tag == fcm[0].message.android.notification.tag)
    let fcmImage = try #require(fcm[1].message.data["image_url"])
    #expect(fcm[1].message.android.notification.image == fcmImage)

    // The ntfy topic: the text, then the same sequence id with the photo attached; the phone
    // shows one notification, with the photo.
    #expect(ntfy.allSatisfy { $0.status == 200 } && ntfy[0].sequenceID == ntfy[1].sequenceID)
    #expect(ntfy[0].title == "Robbie was lifted" && ntfy[0].priority == 5)
    #expect(ntfy[0].attach == nil)
    let ntfyImage = try #require(ntfy[1].attach)
    let shownOnPhone = try await stack.ntfy.view(topic)
    #expect(shownOnPhone.count == 1 && shownOnPhone.first?.attachment?.url == ntfyImage)

    // Each photo URL answers the photo from the owner's server, with the signed URL alone.
    for (platform, url) in [
      ("apns", apnsImage), ("webpush", browserImage), ("fcm", fcmImage), ("ntfy", ntfyImage),
    ] {
      #expect(url.hasPrefix("\(serving)/api/v1/notifications/push-images/"), "\(platform) \(url)")
      let photo = FileManager.default.temporaryDirectory.appendingPathComponent(
        "e2e-\(platform)-\(UUID()).jpg")
      defer { try? FileManager.default.removeItem(at: photo) }
      let fetched = try await runShellOffThePool(
        "curl -s -o '\(photo.path)' -w '%{http_code} %{content_type}' '\(url)'")
      #expect(fetched == "200 image/jpeg", "\(platform): \(fetched)")
      let jpeg = [UInt8](FileManager.default.contents(atPath: photo.path) ?? Data())
      #expect(jpeg.prefix(2) == [0xFF, 0xD8], "\(platform)")
    }
    // The text once and one follow-up, exactly: nothing more arrives once all has settled
    // (every device here is the user's, and the doubles are this test's own).
    try await Task.sleep(for: .seconds(2))
    #expect(try stack.fcm.recordLines().filter { $0.route == "send" }.count == 2)
    #expect(try stack.ntfy.records.lines().count == 2)
    #expect(try stack.webPush.recordLines().count == 2)
    #expect(try await stack.apnsPushes(1).count == 1)
    #expect(ntfy.allSatisfy { $0.token == EveryPlatformStack.ntfyToken })
    try Self.expectNoCredentialLogged(stack, subscription: subscription)
  }

  /// No credential of any channel in any log line of the system's processes: the APNs and
  /// VAPID key, the FCM service account's private key and the access tokens it was granted,
  /// the ntfy token, a browser's keys, the user's session, and no JWT: neither a VAPID JWT
  /// the Web Push double received (whole, its claims or its signature) nor anything that
  /// starts as a base64url JSON object (`eyJ`), which a JWT cut short would still be.
  static func expectNoCredentialLogged(
    _ stack: EveryPlatformStack, subscription: WebPushSandboxHarness.Subscription
  ) throws {
    let logs = stack.workerLogs
    #expect(logs.contains("FCM") && logs.contains("ntfy"), "the workers logged nothing")
    let keyLines = { (pem: String) in
      pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
    }
    let p8 = try String(
      contentsOfFile: stack.environment["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"] ?? "",
      encoding: .utf8)
    var secrets = keyLines(p8) + keyLines(try FCMSandboxHarness.serviceAccountKey().privateKeyPEM)
    secrets += try stack.fcm.grants().compactMap(\.accessToken)
    #expect(try !stack.fcm.grants().isEmpty)
    secrets += [
      EveryPlatformStack.ntfyToken, subscription.keys.auth, subscription.keys.p256dh,
      stack.session,
    ]
    let vapidTokens = try stack.webPush.recordLines().compactMap(\.vapidJWT)
    #expect(!vapidTokens.isEmpty, "the Web Push double recorded no VAPID JWT")
    for token in vapidTokens {
      secrets += [token] + token.split(separator: ".").dropFirst().map(String.init)
    }
    for secret in secrets where !secret.isEmpty {
      #expect(!logs.contains(secret), "a credential in the logs: \(secret.prefix(6))…")
    }
    #expect(!logs.contains("eyJ"), "a base64url JSON object (a JWT?) in the logs")
  }

  /// The message as the service worker reads it.
  struct WebPushMessage: Decodable {
    let title: String
    let tag: String
    let imageURL: String?
    enum CodingKeys: String, CodingKey {
      case title, tag
      case imageURL = "image_url"
    }
  }
}
