import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// The inbox API for a signed-in user, over real HTTP against real PostgreSQL.
@Suite struct InboxTests {
  private func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

  @Test func theInboxListsTheUsersOwnItemsNewestFirstWithTheirPhotoState() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let old = try await fixture.seedAlarm(
        kind: "battery_low", photo: .none, createdSecondsAgo: 300)
      let stuck = try await fixture.seedAlarm(
        kind: "mower_stuck", reason: "trapped", photo: .failed("busy"), createdSecondsAgo: 200)
      let lifted = try await fixture.seedAlarm(
        photo: .captured(TestPhotos.small), createdSecondsAgo: 100)
      let pending = try await fixture.seedAlarm(photo: .pending, createdSecondsAgo: 0)
      try await fixture.seedAlarm(user: "u2", photo: .pending)
      let token = try await fixture.session(for: "u1")
      let response = try await fixture.get(InboxRoutes.listPattern, headers: bearer(token))
      #expect(response.status == 200)
      #expect(response.headers["content-type"] == "application/json")
      let items = try #require(response.json?["items"]?.objects)
      #expect(
        items.map { $0["item_id"]?.string }
          == [pending, lifted, stuck, old].map { $0.itemID.uuidString.lowercased() })
      #expect(items.map { $0["has_image"]?.bool } == [false, true, false, false])
      #expect(items.map { $0["photo"]?.string } == ["pending", "available", "gone", "none"])
      #expect(items[2]["title"]?.string == "Robbie needs help")
      #expect(items[2]["body"]?.string == "The mower is trapped and cannot move.")
      #expect(
        items[1]["notification_id"]?.string == lifted.notificationID.uuidString.lowercased())
      #expect(items[1]["mower_id"]?.string == "m1")
      #expect(items[1]["mower_name"]?.string == "Robbie")
      #expect(items[1]["kind"]?.string == "mower_lifted")
      #expect(items[1]["occurred_at"]?.string != nil)
      #expect(response.json?["next_before"]?.isNull == true)
    }
  }

  @Test func theInboxIsPaginatedWithoutGapsOrRepeats() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      var seeded: [UUID] = []
      for index in 0..<7 {
        seeded.append(
          try await fixture.seedAlarm(photo: .none, createdSecondsAgo: Double(index) * 60).itemID)
      }
      let token = try await fixture.session(for: "u1")
      var seen: [String] = []
      var before: String? = nil
      var pages = 0
      repeat {
        let target = InboxRoutes.listPattern + "?limit=3" + (before.map { "&before=\($0)" } ?? "")
        let page = try #require(try await fixture.get(target, headers: bearer(token)).json)
        seen += (page["items"]?.objects ?? []).compactMap { $0["item_id"]?.string }
        before = page["next_before"]?.string
        pages += 1
      } while before != nil && pages < 10
      #expect(pages == 3)
      #expect(seen == seeded.map { $0.uuidString.lowercased() })
    }
  }

  @Test(arguments: [
    "?limit=0", "?limit=101", "?limit=abc", "?limit=5&limit=5", "?before=nope", "?x=1",
    "?limit=%35", "?limit=", "?&", "?before=\(UUID().uuidString)&before=\(UUID().uuidString)",
  ])
  func aBadInboxQueryIs400(query: String) async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let token = try await fixture.session(for: "u1")
      let response = try await fixture.get(InboxRoutes.listPattern + query, headers: bearer(token))
      #expect(response.status == 400)
    }
  }

  @Test func theImageOfTheUsersOwnItemIsServedAndAnotherUsersIs404() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let mine = try await fixture.seedAlarm(photo: .captured(TestPhotos.large))
      let theirs = try await fixture.seedAlarm(user: "u2", photo: .captured(TestPhotos.small))
      let pending = try await fixture.seedAlarm(photo: .pending)
      let failed = try await fixture.seedAlarm(photo: .failed("asleep"))
      let routine = try await fixture.seedAlarm(photo: .none)
      let token = try await fixture.session(for: "u1")
      func image(_ item: UUID) async throws -> RawResponse {
        try await fixture.get(
          "/api/v1/notifications/inbox/\(item.uuidString.lowercased())/image",
          headers: bearer(token))
      }
      let response = try await image(mine.itemID)
      #expect(response.status == 200)
      #expect(response.body == TestPhotos.large)
      #expect(response.headers["content-type"] == "image/jpeg")
      #expect(response.headers["cache-control"] == "private, no-store")
      #expect(response.headers["x-content-type-options"] == "nosniff")
      let other = try await image(theirs.itemID)
      let unknown = try await image(UUID())
      #expect(other.status == 404)
      #expect(other.body == unknown.body, "another user's item looks like no item at all")
      #expect(try await image(pending.itemID).status == 404)
      #expect(try await image(failed.itemID).status == 410)
      #expect(try await image(routine.itemID).status == 404)
      // The notification id is not an item id.
      #expect(try await image(mine.notificationID).status == 404)
      let served = try await fixture.db.pool.query(
        "SELECT data->>'route' AS route FROM events WHERE type = 'image.served'")
      #expect(try served.map { try $0.string("route") } == ["inbox"])
    }
  }

  @Test func aMissingMalformedExpiredOrRevokedSessionIs401() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let directory = Directory(pool: fixture.db.pool)
      let revoked = try await fixture.session(for: "u1")
      try await directory.revokeSession(token: revoked)
      let expired = try await directory.createSession(userID: "u1", lifetime: -1)
      let valid = try await fixture.session(for: "u1")
      let image = "/api/v1/notifications/inbox/\(alarm.itemID.uuidString.lowercased())/image"
      let cases: [[String: String]] = [
        [:], bearer(revoked), bearer(expired), bearer(String(repeating: "0", count: 64)),
        ["Authorization": "Basic \(valid)"], ["Authorization": "Bearer"],
        ["Authorization": "Bearer  \(valid)"], ["Authorization": valid],
        ["Authorization": "Bearer \(valid)x"],
      ]
      for headers in cases {
        for target in [InboxRoutes.listPattern, image] {
          let response = try await fixture.get(target, headers: headers)
          #expect(response.status == 401, "\(headers) \(target)")
          #expect(response.headers["www-authenticate"] == "Bearer")
        }
      }
      #expect(try await fixture.get(image, headers: bearer(valid)).status == 200)
      #expect(try await fixture.get(image, headers: bearer(valid.uppercased())).status == 200)
      // Revoking takes effect at once.
      try await directory.revokeSession(token: valid)
      #expect(try await fixture.get(image, headers: bearer(valid)).status == 401)
    }
  }

  @Test func aDeviceIsRegisteredMovedAndRemoved() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let token = try await fixture.session(for: "u1")
      let device = String(repeating: "ab", count: 32)
      func call(_ method: String, _ body: String, session: String? = nil) async throws
        -> RawResponse
      {
        try await RawHTTP.request(
          fixture.port, method: method, target: DeviceRoutes.pattern,
          headers: bearer(session ?? token).merging(["Content-Type": "application/json"]) { $1 },
          body: Array(body.utf8))
      }
      let added = try await call(
        "POST", #"{"token": "\#(device.uppercased())", "environment": "sandbox"}"#)
      #expect(added.status == 201)
      #expect(added.json?["environment"]?.string == "sandbox")
      let rows = try await fixture.db.pool.query(
        "SELECT user_id, environment, active FROM devices WHERE token = \(device)")
      #expect(rows.count == 1)
      #expect(try rows[0].string("user_id") == "u1")
      #expect(try rows[0].string("environment") == "sandbox")
      // Registering again is harmless; without an environment it is production.
      #expect(try await call("POST", #"{"token": "\#(device)"}"#).status == 201)
      #expect(
        try await fixture.db.count(
          "SELECT count(*) AS n FROM devices WHERE token = \(device) AND environment = 'production'"
        ) == 1)
      // Another user cannot remove it.
      let other = try await fixture.session(for: "u2")
      #expect(try await call("DELETE", #"{"token": "\#(device)"}"#, session: other).status == 404)
      #expect(try await call("DELETE", #"{"token": "\#(device)"}"#).status == 204)
      #expect(
        try await fixture.db.count("SELECT count(*) AS n FROM devices WHERE token = \(device)") == 0
      )
      #expect(try await call("DELETE", #"{"token": "\#(device)"}"#).status == 404)
      for bad in [
        "", "not json", "[]", #"{"token": 5}"#, #"{"token": "abc"}"#,
        #"{"token": "\#(String(repeating: "g", count: 64))"}"#,
        #"{"token": "\#(device)", "environment": "staging"}"#,
      ] {
        let response = try await call("POST", bad)
        #expect(response.status == 400, "\(bad)")
        #expect(response.json?["error"]?.string != nil)
      }
      let tooLarge = try await call("POST", String(repeating: " ", count: 20_000))
      #expect(tooLarge.status == 413)
      #expect(
        try await RawHTTP.request(fixture.port, method: "POST", target: DeviceRoutes.pattern).status
          == 401)
      #expect(try await fixture.get(DeviceRoutes.pattern, headers: bearer(token)).status == 405)
    }
  }
}
