import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import PhotoWorker

/// The photo's follow-up, queued with `photo.captured` in one transaction: one per Web Push,
/// FCM or ntfy device that got the alarm's message, none for an iPhone, none after a failed
/// capture, none for an alarm older than an image URL lives.
@Suite struct PhotoFollowUpTests {
  static let photo = Array(
    FileManager.default.contents(atPath: TestServers.repositoryPath("deploy/frames/small.jpg"))
      ?? Data())

  /// One pushed theft alarm of m-`n` with a reserved photo, for user u-`n` with an iPhone,
  /// two browsers (one of them switched off since) and an Android phone; its notification
  /// created `ageSeconds` ago. Returns the alarm's event id.
  static func alarm(in db: TestDatabase, ageSeconds: Int = 0, n: Int = 1) async throws -> UUID {
    let (user, mower) = ("u-\(n)", "m-\(n)")
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: user, name: "Owner")
    try await directory.grant(mowerID: mower, userID: user)
    try await directory.addDevice(
      userID: user, token: String(repeating: "a", count: 63) + String(n), environment: "production")
    let key = Base64URL.encode([4] + [UInt8](repeating: 7, count: 64))
    let secret = Base64URL.encode([UInt8](repeating: 9, count: 16))
    for endpoint in ["https://push.test/on", "https://push.test/off"] {
      try await directory.addDevice(
        userID: user,
        address: try .checkedWebPush(
          endpoint: endpoint + (n == 1 ? "" : "-\(n)"), p256dh: key, auth: secret,
          allowedHosts: ["push.test"]))
    }
    try await directory.addDevice(
      userID: user, address: try .checkedFCM(token: "android-\(n)"))
    let eventID = UUID()
    try await db.pool.query(
      """
      WITH alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            decision, photo, recipients)
        VALUES (\(eventID), \(mower), 'mower_lifted', 'theft', now(), now(), 'pushed', 'reserved',
                1)
        RETURNING event_id
      ), reservation AS (
        INSERT INTO photo_reservations (image_id, event_id, mower_id, reserved_on)
        SELECT gen_random_uuid(), event_id, \(mower), now() FROM alarm
        RETURNING image_id, event_id
      ), notification AS (
        INSERT INTO notifications (notification_id, event_id, user_id, image_id, created_at)
        SELECT gen_random_uuid(), event_id, \(user), image_id,
               now() - make_interval(secs => \(ageSeconds))
        FROM reservation RETURNING notification_id
      )
      INSERT INTO deliveries (notification_id, device_id, platform)
      SELECT notification_id, device_id, platform FROM notification, devices
      WHERE devices.user_id = \(user)
      """)
    try await db.pool.query(
      "UPDATE devices SET active = false WHERE token LIKE 'https://push.test/off%'")
    return eventID
  }

  static func store(_ db: TestDatabase) -> PhotoStore {
    PhotoStore(
      pool: db.pool,
      images: ImageStore(limits: ImageLimits(configuration: try! Configuration.load(from: [:]))),
      photoTimeoutSeconds: 20, followUps: PhotoFollowUps(windowSeconds: 600))
  }

  func followUps(_ db: TestDatabase) async throws -> [(platform: String, endpoint: String)] {
    try await db.pool.query(
      """
      SELECT d.platform, v.token FROM deliveries d JOIN devices v USING (device_id)
      WHERE d.followup ORDER BY d.platform
      """
    ).map { (try $0.string("platform"), try $0.string("token")) }
  }

  @Test func aCaptureQueuesOneFollowUpPerActiveNonAPNsDevice() async throws {
    let db = try await TestDatabase.make()
    let eventID = try await Self.alarm(in: db)
    let store = Self.store(db)
    let claim = try #require(try await store.claim(limit: 1).first)
    #expect(
      try await store.complete(claim, result: .captured(Self.photo), latencySeconds: 1.2)
        == .stored(followUps: 2))
    let queued = try await followUps(db)
    #expect(queued.map(\.platform) == ["fcm", "webpush"])
    #expect(queued.map(\.endpoint) == ["android-1", "https://push.test/on"])
    // Not leased: each platform's worker claims them.
    #expect(
      try await db.count(
        "SELECT count(*) AS n FROM deliveries WHERE followup AND lease_token IS NULL") == 2)
    let events = try await EventLog().story(of: eventID, pool: db.pool)
    #expect(
      events.map(\.type) == [
        "photo.requested", "photo.captured", "delivery.queued", "delivery.queued",
      ])
    let data = try events.suffix(2).map { try $0.decode(DeliveryQueued.self) }
    #expect(data.allSatisfy { $0.followup == true })
    #expect(Set(data.map(\.platform)) == [.fcm, .webpush])
  }

  @Test func aFailedCaptureQueuesNone() async throws {
    let db = try await TestDatabase.make()
    _ = try await Self.alarm(in: db)
    let store = Self.store(db)
    let claim = try #require(try await store.claim(limit: 1).first)
    _ = try await store.complete(
      claim, result: .failed(.timeout, detail: nil), latencySeconds: 20)
    #expect(try await followUps(db).isEmpty)
  }

  @Test func aPhotoLaterThanAnImageURLLivesQueuesNone() async throws {
    let db = try await TestDatabase.make()
    _ = try await Self.alarm(in: db, ageSeconds: 601)
    let store = Self.store(db)
    let claim = try #require(try await store.claim(limit: 1).first)
    _ = try await store.complete(claim, result: .captured(Self.photo), latencySeconds: 1)
    #expect(try await followUps(db).isEmpty)
  }

  /// Photos stored in one group get their follow-ups from one statement, each alarm's own:
  /// counted on its completion and told in its own story, none for the failed capture.
  @Test func aGroupOfCapturesQueuesEachAlarmsOwnFollowUps() async throws {
    let db = try await TestDatabase.make()
    var alarms: [UUID] = []
    for n in 1...3 { alarms.append(try await Self.alarm(in: db, n: n)) }
    let store = Self.store(db)
    let claims = try await store.claim(limit: 3)
    #expect(claims.count == 3)
    var group = PhotoCompletions()
    for claim in claims {
      let failed = claim.eventID == alarms[1]
      let added = group.add(
        PhotoCompletion(
          claim: claim, result: failed ? .failed(.timeout, detail: nil) : .captured(Self.photo),
          latencySeconds: 1))
      #expect(added)
    }
    let completions = try await store.complete(group)
    for (claim, completion) in zip(claims, completions) {
      #expect(completion == .stored(followUps: claim.eventID == alarms[1] ? 0 : 2))
    }
    for (index, alarm) in alarms.enumerated() {
      let story = try await EventLog().story(of: alarm, pool: db.pool)
      let queued = try story.filter { $0.type == "delivery.queued" }
        .map { try $0.decode(DeliveryQueued.self) }
      #expect(queued.count == (index == 1 ? 0 : 2), "alarm \(index + 1)")
      #expect(queued.allSatisfy { $0.followup == true })
    }
    #expect(
      try await followUps(db).map(\.endpoint).sorted() == [
        "android-1", "android-3", "https://push.test/on", "https://push.test/on-3",
      ])
  }
}
