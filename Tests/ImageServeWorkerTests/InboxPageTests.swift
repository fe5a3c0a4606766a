import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// The web inbox as a person sees it: the page opened in headless Chromium, its script run,
/// then the DOM read back. Skipped, with the reason, only where no Chromium is installed.
@Suite struct InboxPageTests {
  static let chromium = HeadlessBrowser.chromium

  @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium)"))
  func thePageListsTheItemsAndShowsEachPhotoUnderItsItem() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let lifted = try await fixture.seedAlarm(
        photo: .captured(TestPhotos.small), createdSecondsAgo: 30)
      let stuck = try await fixture.seedAlarm(
        kind: "mower_stuck", reason: "obstacle", photo: .captured(TestPhotos.large),
        createdSecondsAgo: 20)
      let pending = try await fixture.seedAlarm(
        kind: "geofence_exit", photo: .pending, createdSecondsAgo: 10)
      try await fixture.seedAlarm(kind: "battery_low", photo: .none)
      try await fixture.seedAlarm(user: "u2", kind: "mower_left_dock_unexpectedly", photo: .pending)
      let token = try await fixture.session(for: "u1")

      let dom = try await Self.render("http://127.0.0.1:\(fixture.port)/inbox#token=\(token)")
      let items = Self.items(in: dom)
      #expect(items.count == 4, "\(dom)")
      #expect(
        items.map(\.title) == [
          "Robbie battery low", "Robbie left its area", "Robbie needs help", "Robbie was lifted",
        ])
      #expect(items[2].body == "An obstacle is blocking the mower.")
      // The two stored photos are shown, loaded and decoded, under their own items.
      let withPhotos = items.filter { $0.loadedPhotoWidth != nil }
      #expect(
        withPhotos.map(\.itemID)
          == [stuck.itemID, lifted.itemID].map { $0.uuidString.lowercased() })
      #expect(withPhotos.map(\.loadedPhotoWidth) == ["1440", "640"])
      #expect(items[1].itemID == pending.itemID.uuidString.lowercased())
      #expect(items[1].text.contains("Photo coming"))
      // The other user's alarm is not there.
      #expect(!dom.contains("left its dock"))
    }
  }

  @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium)"))
  func aRevokedSessionShowsAMessageAndNoItems() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let token = try await fixture.session(for: "u1")
      try await Directory(pool: fixture.db.pool).revokeSession(token: token)
      let dom = try await Self.render("http://127.0.0.1:\(fixture.port)/inbox#token=\(token)")
      #expect(Self.items(in: dom).isEmpty)
      #expect(dom.contains("Your session has ended. Sign in again."))
    }
  }

  @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium)"))
  func thePageListsTheUsersDevicesOfEveryPlatformAndRemovesOneOnAClick() async throws {
    try await ServeFixture.with(["MOWDECK_NOTIFICATIONS_NTFY_URL": "https://ntfy.example"]) {
      fixture in
      try await fixture.seedDirectory()
      let directory = Directory(pool: fixture.db.pool)
      let phone = try await directory.addDevice(
        userID: "u1",
        address: .apns(token: String(repeating: "ab", count: 32), environment: "production"))
      let android = try await directory.addDevice(userID: "u1", address: .fcm(token: "fcm-token:1"))
      _ = try await directory.addDevice(userID: "u1", address: DeviceAddress.newNtfyTopic())
      _ = try await directory.addDevice(
        userID: "u1",
        address: .webPush(
          endpoint: "https://fcm.googleapis.com/fcm/send/abc", p256dh: "k", auth: "a"))
      // Another user's device is never listed.
      _ = try await directory.addDevice(userID: "u2", address: .fcm(token: "someone-else"))
      let token = try await fixture.session(for: "u1")
      let listed = "document.querySelectorAll('li.device').length"
      let dom = try await BrowserClick.run(
        BrowserClick.Settings(
          pageURL: "http://127.0.0.1:\(fixture.port)/inbox#token=\(token)",
          ready: "\(listed) === 4",
          click:
            "document.querySelector('li.device[data-device-id=\"\(android.uuidString.lowercased())\"] button.remove').click()",
          done: "\(listed) === 3"))
      let platforms = dom.components(separatedBy: "data-platform=\"").dropFirst().map {
        String($0.prefix { $0 != "\"" })
      }
      #expect(platforms == ["apns", "ntfy", "webpush"], "\(dom)")
      #expect(dom.contains("iPhone or iPad · abababab"))
      #expect(dom.contains("Browser · fcm.googleapis.com"))
      #expect(dom.contains("The device was removed."))
      let left = try await directory.devices(ofUser: "u1").map(\.deviceID)
      #expect(left.count == 3 && left.contains(phone) && !left.contains(android))
      #expect(try await directory.devices(ofUser: "u2").count == 1)
    }
  }

  struct Item {
    let itemID: String
    let title: String
    let body: String
    let text: String
    /// `data-width` of the item's photo once the browser decoded it, else nil.
    let loadedPhotoWidth: String?
  }

  /// The `<li class="item">` elements of the dumped DOM, in page order.
  static func items(in dom: String) -> [Item] {
    dom.components(separatedBy: "<li class=\"item\"").dropFirst().map { chunk in
      let item = String(chunk.prefix(while: { $0 != "\u{0}" }).components(separatedBy: "</li>")[0])
      func inner(_ open: String, _ close: String) -> String {
        guard let start = item.range(of: open)?.upperBound,
          let end = item[start...].range(of: close)?.lowerBound
        else { return "" }
        return String(item[start..<end])
      }
      let image = inner("<img", ">")
      let loaded = image.contains("data-loaded=\"true\"")
      return Item(
        itemID: inner("data-item-id=\"", "\""), title: inner("<h2 class=\"title\">", "</h2>"),
        body: inner("<p class=\"body\">", "</p>"), text: item,
        loadedPhotoWidth: loaded ? inner("data-width=\"", "\"") : nil)
    }
  }

  /// Opens `url` in headless Chromium, lets its scripts and fetches run, and returns the DOM.
  static func render(_ url: String) async throws -> String {
    let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "chromium-\(UUID())")
    defer { try? FileManager.default.removeItem(at: profile) }
    let dump = profile.path + ".html"
    defer { try? FileManager.default.removeItem(atPath: dump) }
    // Waited for without blocking: the server's request tasks need the cooperative pool.
    let process = try ChildProcess(
      executable: chromium!,
      arguments: HeadlessBrowser.flags(profile: profile.path) + [
        "--virtual-time-budget=10000", "--dump-dom", url,
      ], environment: ProcessInfo.processInfo.environment, output: dump, errors: "/dev/null")
    _ = await process.exitStatus()
    let data = FileManager.default.contents(atPath: dump) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}
