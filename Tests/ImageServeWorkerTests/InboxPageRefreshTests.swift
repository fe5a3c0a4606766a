import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// The web inbox kept open: the session kept for the tab, new items and photos appearing
/// without a reload, and the session ending while the page is open. Against a real
/// ImageServeWorker in this process and headless Chromium.
@Suite struct InboxPageRefreshTests {
  static let chromium = HeadlessBrowser.chromium
  static let items = "document.querySelectorAll('li.item')"
  static let stored = "sessionStorage.getItem('mowdeck.inbox.session')"
  static let status = "document.getElementById('status')"

  static func item(_ seeded: ServeFixture.Seeded) -> String {
    "document.querySelector('li.item[data-item-id=\"\(seeded.itemID.uuidString.lowercased())\"]')"
  }

  @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium)"))
  func theSessionIsKeptForTheTabAcrossAReloadButNotInANewTabAndSignOutEndsIt() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let token = try await fixture.session(for: "u1")
      let page = "http://127.0.0.1:\(fixture.port)/inbox"
      let shown = "\(Self.items).length + ' ' + document.getElementById('session').hidden"
      var steps: [InboxBrowser.Step] =
        [
          .open(page + "#token=\(token)"),
          .until("\(Self.items).length === 1 && document.querySelector('img.photo[data-loaded]')"),
        ]
      steps += InboxBrowser.Step.screenshot("inbox-session.png")
      steps += [
        .reload,
        .until("\(Self.items).length === 1"),
        .say("reloaded", "location.hash + '|' + \(Self.stored) + '|' + \(shown)"),
        .open(page),
        .say("newTab", "\(Self.stored) + '|' + \(shown)"),
        .open(page + "#token=\(token)"),
        .until("\(Self.items).length === 1"),
        .say("signOut", "document.getElementById('signout').click()"),
        .reload,
        .say("signedOut", "\(Self.stored) + '|' + \(shown)"),
      ]
      try await InboxBrowser.with(steps) { browser in
        // The token left the address bar but stayed with the tab.
        let seenReloaded = try await browser.value("reloaded")
        #expect(seenReloaded == "|\(token)|1 true")
        let seenNewTab = try await browser.value("newTab")
        #expect(seenNewTab == "null|0 false")
        let seenSignedOut = try await browser.value("signedOut")
        #expect(seenSignedOut == "null|0 false")
      }
    }
  }

  @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium)"))
  func aNewItemAppearsOnTopAndPhotoComingTurnsIntoThePhotoWithoutAReload() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let failed = try await fixture.seedAlarm(
        kind: "mower_stuck", photo: .failed("camera offline"), createdSecondsAgo: 60)
      let pending = try await fixture.seedAlarm(photo: .pending, createdSecondsAgo: 30)
      let token = try await fixture.session(for: "u1")
      let order =
        "Array.from(\(Self.items), (node) => node.dataset.itemId + ':' + node.dataset.photo).join(' ')"
      let coming = "\(Self.item(pending)).querySelector('.photo-coming')"
      let photo = "\(Self.item(pending)).querySelector('img.photo[data-loaded]')"
      var steps: [InboxBrowser.Step] =
        [
          .open("http://127.0.0.1:\(fixture.port)/inbox#token=\(token)"),
          .until("\(Self.items).length === 2 && \(coming)"),
          // Survives only if the page is never reloaded.
          .say("first", "(window.samePage = 'yes', \(coming).textContent + '|' + \(order))"),
        ]
      steps += InboxBrowser.Step.screenshot("inbox-photo-coming.png")
      steps += [
        .until("\(Self.items).length === 3"),
        .say("newItem", "window.samePage + '|' + \(order)"),
        .until(photo),
      ]
      steps += InboxBrowser.Step.screenshot("inbox-photo.png")
      steps += [
        .say("photo", "window.samePage + '|' + \(photo).dataset.width + '|' + !\(coming)")
      ]
      try await InboxBrowser.with(steps) { browser in
        let id = { (seeded: ServeFixture.Seeded) in seeded.itemID.uuidString.lowercased() }
        let seenFirst = try await browser.value("first")
        #expect(seenFirst == "Photo coming…|\(id(pending)):pending \(id(failed)):gone")
        let fresh = try await fixture.seedAlarm(kind: "battery_low", photo: .none)
        let seenNewItem = try await browser.value("newItem")
        #expect(seenNewItem == "yes|\(id(fresh)):none \(id(pending)):pending \(id(failed)):gone")
        try await fixture.finishCapture(pending, jpeg: TestPhotos.small, failure: nil)
        let seenPhoto = try await browser.value("photo")
        #expect(seenPhoto == "yes|640|true")
      }
    }
  }

  @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium)"))
  func aSessionRevokedWhileThePageIsOpenShowsItsMessageAndForgetsTheSession() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      try await fixture.seedAlarm(photo: .none)
      let token = try await fixture.session(for: "u1")
      var steps: [InboxBrowser.Step] =
        [
          .open("http://127.0.0.1:\(fixture.port)/inbox#token=\(token)"),
          .until("\(Self.items).length === 1"),
          .say("listed", "\(Self.stored) !== null"),
          .until("\(Self.status).dataset.state === 'unauthorized'"),
        ]
      steps += InboxBrowser.Step.screenshot("inbox-401.png")
      steps += [
        .say(
          "ended",
          "\(Self.status).textContent + '|' + \(Self.stored) + '|' + \(Self.items).length + '|' + document.getElementById('session').hidden"
        )
      ]
      try await InboxBrowser.with(steps) { browser in
        let seenListed = try await browser.value("listed")
        #expect(seenListed == "true")
        try await Directory(pool: fixture.db.pool).revokeSession(token: token)
        let seenEnded = try await browser.value("ended")
        #expect(seenEnded == "Your session has ended. Sign in again.|null|0|false")
      }
    }
  }
}
