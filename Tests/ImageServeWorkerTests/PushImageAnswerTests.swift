import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// Every row of the table of docs/interfaces.md#the-serving-process-imageserveworker, over real
/// HTTP against real PostgreSQL.
@Suite struct PushImageAnswerTests {
  @Test func aStoredPhotoIsServedWithItsHeaders() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.large))
      let response = try await fixture.get(fixture.pushTarget(alarm.notificationID))
      #expect(response.status == 200)
      #expect(response.body == TestPhotos.large)
      #expect(response.headers["content-length"] == String(TestPhotos.large.count))
      #expect(response.headers["content-type"] == "image/jpeg")
      #expect(response.headers["cache-control"] == "private, no-store")
      #expect(response.headers["x-content-type-options"] == "nosniff")
    }
  }

  @Test(arguments: [
    ("no image id", ServeFixture.Photo.none, 404),
    ("reservation pending", .pending, 404),
    ("capture failed", .failed("asleep"), 410),
  ])
  func theAnswerFollowsThePhotoState(name: String, photo: ServeFixture.Photo, status: Int)
    async throws
  {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: photo)
      let response = try await fixture.get(fixture.pushTarget(alarm.notificationID))
      #expect(response.status == status, "\(name)")
      #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
      #expect(response.body.count < 40, "a plain status, no hint")
    }
  }

  @Test func aGenuineURLForAnUnknownNotificationIs404() async throws {
    try await ServeFixture.with { fixture in
      let response = try await fixture.get(fixture.pushTarget(UUID()))
      #expect(response.status == 404)
    }
  }

  @Test func theExpirySecondItselfIsStillValidAndTheNextIsGone() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let target = fixture.pushTarget(alarm.notificationID, expiresIn: 10)
      let expiry = fixture.clock.now().addingTimeInterval(10)
      fixture.clock.set(expiry.addingTimeInterval(0.999))
      #expect(try await fixture.get(target).status == 200)
      fixture.clock.set(expiry.addingTimeInterval(1))
      #expect(try await fixture.get(target).status == 410)
      // Expired answers come from the URL alone: even an unknown notification says 410.
      #expect(try await fixture.get(fixture.pushTarget(UUID(), expiresIn: -1)).status == 410)
    }
  }

  @Test func aCaptureThatFailsWhileThePhoneIsAskingTurns404Into410() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .pending)
      let target = fixture.pushTarget(alarm.notificationID)
      #expect(try await fixture.get(target).status == 404)
      #expect(try await fixture.get(target).status == 404)
      try await fixture.finishCapture(alarm, jpeg: nil, failure: "timeout")
      #expect(try await fixture.get(target).status == 410)
    }
  }

  @Test func aPhotoThatArrivesWhileThePhoneIsAskingTurns404Into200() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .pending)
      let target = fixture.pushTarget(alarm.notificationID)
      #expect(try await fixture.get(target).status == 404)
      try await fixture.finishCapture(alarm, jpeg: TestPhotos.small, failure: nil)
      let response = try await fixture.get(target)
      #expect(response.status == 200)
      #expect(response.body == TestPhotos.small)
    }
  }

  @Test func aPhotoPrunedAfterItWasServedIs410() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let target = fixture.pushTarget(alarm.notificationID)
      #expect(try await fixture.get(target).status == 200)
      try await fixture.pruneStoredPhoto(alarm)
      #expect(try await fixture.get(target).status == 410)
    }
  }

  @Test func aPhotoPastItsRetentionIs410EvenBeforeTheRowIsRemoved() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let target = fixture.pushTarget(alarm.notificationID)
      #expect(try await fixture.get(target).status == 200)
      try await fixture.expireStoredPhoto(alarm)
      #expect(try await fixture.get(target).status == 410)
    }
  }

  @Test func aFailureMarkerPrunedAfterAnHourIsStill410() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .failed("no_camera"))
      try await fixture.pruneStoredPhoto(alarm)
      #expect(try await fixture.get(fixture.pushTarget(alarm.notificationID)).status == 410)
    }
  }

  @Test func imageServedIsWrittenOnceForTheFirstOfManyConcurrentFetches() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let other = try await fixture.seedRecipient(of: alarm, user: "u2")
      let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
        for index in 0..<24 {
          let target = fixture.pushTarget(
            index % 2 == 0 ? alarm.notificationID : other.notificationID)
          group.addTask { try await fixture.get(target).status }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(statuses == Array(repeating: 200, count: 24))
      // One per notification: both recipients' phones fetched the shared photo.
      #expect(try await fixture.servedEvents(alarm) == 1)
      #expect(try await fixture.servedEvents(other) == 1)
      let data = try await fixture.db.pool.query(
        """
        SELECT data::text AS data FROM events
        WHERE type = 'image.served' AND correlation_id = \(alarm.eventID)
        """)
      #expect(data.count == 2)
      let first = try #require(JSON.object(from: Array(try data[0].string("data").utf8)))
      #expect(first["bytes"]?.integer == TestPhotos.small.count)
      #expect(first["route"]?.string == "push")
      #expect(first["image_id"]?.string == alarm.imageID?.uuidString.lowercased())
      let text = try data.map { try $0.string("data") }.joined()
      #expect(!text.contains("s="), "no signature in the event log")
    }
  }

  @Test func withoutAnImageKeyEveryPushURLIs404() async throws {
    try await ServeFixture.with([
      "MOWDECK_NOTIFICATIONS_IMAGE_SECRET": "", "MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS": "",
    ]) { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      #expect(try await fixture.get(fixture.pushTarget(alarm.notificationID)).status == 404)
    }
  }
}
