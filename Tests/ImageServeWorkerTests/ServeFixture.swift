import Events
import Foundation
import Infrastructure
import TestSupport

@testable import ImageServeWorker

/// One ImageServeWorker in this process on a free port, over a schema of its own, with a
/// clock the test sets, and helpers that store what the fan-out and PhotoWorker would.
struct ServeFixture: Sendable {
  /// 32 bytes and more: shorter keys are refused at start.
  static let secret = "current-test-secret-of-32-bytes-or-more"
  static let previousSecret = "previous-test-secret-of-32-bytes-or-more"

  let db: TestDatabase
  let service: ImageServeService
  let clock: ManualClock
  /// Signs with the current key, as the APNs worker would.
  let signer = ImageURLSigner(key: Array(secret.utf8))

  var port: Int { service.port }
  var monitoringPort: Int { service.monitoringPort }

  /// Starts a server, runs `body`, and stops the server however `body` ends.
  static func with(
    _ settings: [String: String] = [:], database: TestDatabase? = nil,
    _ body: (ServeFixture) async throws -> Void
  ) async throws {
    let fixture = try await make(settings, database: database)
    do {
      try await body(fixture)
    } catch {
      await fixture.service.stop()
      throw error
    }
    await fixture.service.stop()
  }

  static func make(_ settings: [String: String], database: TestDatabase?) async throws
    -> ServeFixture
  {
    let db: TestDatabase
    if let database { db = database } else { db = try await TestDatabase.make() }
    var environment = [
      "MOWDECK_DATABASE_URL": db.url, "MOWDECK_NATS_URL": try TestServers.natsURL(),
      "MOWDECK_NOTIFICATIONS_HTTP_LISTEN": "127.0.0.1:0",
      "MOWDECK_METRICS_LISTEN": "127.0.0.1:0",
      "MOWDECK_NOTIFICATIONS_IMAGE_SECRET": secret,
      "MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS": previousSecret,
      "MOWDECK_DATABASE_POOL_SIZE": "4",
    ]
    environment.merge(settings) { $1 }
    environment = environment.filter { !$0.value.isEmpty }
    let clock = ManualClock(Date(timeIntervalSince1970: 1_900_000_000))
    // The answers are under test here, not the database deadline (HTTPServerTests holds
    // that): a loaded machine, with every suite's processes on two cores, must not turn a
    // slow query into a 503.
    let service = try ImageServeWorker.make(
      configuration: try Configuration.load(from: environment), logger: TestServers.logger,
      clock: clock, options: HTTPServer.Options(workDeadline: .seconds(20)))
    return ServeFixture(db: db, service: service, clock: clock)
  }

  // MARK: URLs

  /// The push URL's target for `notification`, valid until `expiresIn` seconds from the
  /// fixture's clock.
  func pushTarget(_ notification: UUID, expiresIn: Int64 = 600, signer: ImageURLSigner? = nil)
    -> String
  {
    let expiry = Int64(clock.now().timeIntervalSince1970) + expiresIn
    return (signer ?? self.signer).url(origin: "", notificationID: notification, expiry: expiry)
  }

  func get(_ target: String, headers: [String: String] = [:]) async throws -> RawResponse {
    try await RawHTTP.get(port, target, headers: headers)
  }

  /// A GET to the monitoring endpoint (`/livez`, `/readyz`, `/healthz`, `/metrics`).
  func monitoring(_ target: String) async throws -> RawResponse {
    try await RawHTTP.get(monitoringPort, target)
  }

  // MARK: Rows

  enum Photo: Sendable {
    /// A routine alarm: no image id.
    case none
    /// Reserved, the camera not answered.
    case pending
    case captured([UInt8])
    case failed(String)
  }

  struct Seeded: Sendable {
    let eventID: UUID
    let notificationID: UUID
    let itemID: UUID
    let imageID: UUID?
  }

  /// Users `u1` and `u2`, mower `m1` ("Robbie") seen by both.
  func seedDirectory() async throws {
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u1", name: "Ursula")
    try await directory.addUser(id: "u2", name: "Udo")
    try await directory.addMower(id: "m1", name: "Robbie")
    try await directory.grant(mowerID: "m1", userID: "u1")
    try await directory.grant(mowerID: "m1", userID: "u2")
  }

  /// An alarm pushed to `user` with its photo in state `photo`, as the fan-out and the
  /// PhotoWorker leave it. `createdSecondsAgo` orders inbox items.
  @discardableResult
  func seedAlarm(
    user: String = "u1", kind: String = "mower_lifted", reason: String? = nil,
    photo: Photo = .pending, createdSecondsAgo: Double = 0
  ) async throws -> Seeded {
    let event = UUID()
    let notification = UUID()
    let image: UUID? = if case .none = photo { nil } else { UUID() }
    let rows = try await db.pool.query(
      """
      WITH alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            decision, photo, recipients, reason, mower_name)
        VALUES (\(event), 'm1', \(kind), 'theft', now() - make_interval(secs => \(createdSecondsAgo)),
                now(), 'pushed', \(image == nil ? nil : "reserved"), 1, \(reason), 'Robbie')
        RETURNING event_id
      )
      INSERT INTO notifications (notification_id, event_id, user_id, image_id, created_at)
      SELECT \(notification), event_id, \(user), \(image),
             now() - make_interval(secs => \(createdSecondsAgo))
      FROM alarm
      RETURNING inbox_item_id
      """)
    if let image {
      try await db.pool.query(
        """
        INSERT INTO photo_reservations (image_id, event_id, mower_id, reserved_on)
        VALUES (\(image), \(event), 'm1', now())
        """)
    }
    let seeded = Seeded(
      eventID: event, notificationID: notification, itemID: try rows[0].uuid("inbox_item_id"),
      imageID: image)
    switch photo {
    case .captured(let jpeg): try await finishCapture(seeded, jpeg: jpeg, failure: nil)
    case .failed(let reason): try await finishCapture(seeded, jpeg: nil, failure: reason)
    case .none, .pending: break
    }
    return seeded
  }

  /// A second notification (another user) of the same alarm: they share one photo.
  func seedRecipient(of alarm: Seeded, user: String) async throws -> Seeded {
    let notification = UUID()
    let rows = try await db.pool.query(
      """
      INSERT INTO notifications (notification_id, event_id, user_id, image_id)
      VALUES (\(notification), \(alarm.eventID), \(user), \(alarm.imageID))
      RETURNING inbox_item_id
      """)
    return Seeded(
      eventID: alarm.eventID, notificationID: notification,
      itemID: try rows[0].uuid("inbox_item_id"), imageID: alarm.imageID)
  }

  /// Ends a pending reservation as the PhotoWorker does: in one transaction, the
  /// reservation and the stored row (through the one writer, ImageStore).
  func finishCapture(_ seeded: Seeded, jpeg: [UInt8]?, failure: String?) async throws {
    guard let image = seeded.imageID else { return }
    let store = ImageStore(
      limits: ImageLimits(retentionSeconds: 86_400, failedRetentionSeconds: 3600, keep: 200))
    _ = try await db.pool.withTransaction { tx in
      try tx.query(
        """
        UPDATE photo_reservations SET state = \(jpeg == nil ? "failed" : "captured"),
               finished_at = now()
        WHERE image_id = \(image)
        """)
      return try store.insert(
        imageID: image, eventID: seeded.eventID, jpeg: jpeg, failureReason: failure, tx: tx)
    }
  }

  /// The stored row's retention passed (the next write or the hourly prune removes it).
  func expireStoredPhoto(_ seeded: Seeded) async throws {
    try await db.pool.query(
      "UPDATE notification_images SET expires_at = now() - interval '1 second' WHERE image_id = \(seeded.imageID)"
    )
  }

  /// The stored row removed, as retention does.
  func pruneStoredPhoto(_ seeded: Seeded) async throws {
    try await db.pool.query("DELETE FROM notification_images WHERE image_id = \(seeded.imageID)")
  }

  func servedEvents(_ seeded: Seeded) async throws -> Int {
    try await db.count(
      """
      SELECT count(*) AS n FROM events WHERE type = 'image.served'
        AND data->>'notification_id' = \(seeded.notificationID.uuidString.lowercased())
      """)
  }

  func session(for user: String) async throws -> String {
    try await Directory(pool: db.pool).createSession(userID: user)
  }
}

/// The test photos: real JPEGs of 20 KB and 480 KB (the camera simulator's frames).
enum TestPhotos {
  static let small = load("small.jpg")
  static let large = load("near-limit.jpg")

  private static func load(_ name: String) -> [UInt8] {
    Array(
      FileManager.default.contents(atPath: TestServers.repositoryPath("deploy/frames/\(name)"))
        ?? Data())
  }
}
