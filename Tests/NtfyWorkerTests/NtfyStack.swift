import Events
import Foundation
import Infrastructure
import TestSupport

/// A database of its own, the ntfy double (with `token` if given) and the environment that
/// points an NtfyWorker at both; one user owning mower `m-1`.
struct NtfyStack {
  static let imageBaseURL = "https://owner.example"

  let db: TestDatabase
  let sandbox: NtfySandboxHarness
  let environment: [String: String]

  init(token: String? = nil) async throws {
    db = try await TestDatabase.make()
    let record = FileManager.default.temporaryDirectory.appendingPathComponent(
      "ntfy-\(UUID()).jsonl")
    sandbox = try await NtfySandboxHarness.start(record: record, token: token)
    var environment = try WorkerProcess.environment(
      database: db, subjectPrefix: uniqueSubjectPrefix())
    environment.merge(sandbox.workerEnvironment) { $1 }
    environment["MOWDECK_NOTIFICATIONS_IMAGE_SECRET"] = "test-image-secret-of-32-bytes-or-more"
    environment["MOWDECK_NOTIFICATIONS_IMAGE_BASE_URL"] = Self.imageBaseURL
    environment["MOWDECK_METRICS_LISTEN"] = "127.0.0.1:0"
    self.environment = environment
    try await Directory(pool: db.pool).addUser(id: "u-1", name: "Owner")
    try await Directory(pool: db.pool).grant(mowerID: "m-1", userID: "u-1")
  }

  /// Registers an ntfy device of `u-1` with a fresh topic, answered at the double as
  /// programmed; returns the topic.
  func phone(answer: Int? = nil, retryAfter: Int? = nil, delayMs: Int? = nil) async throws
    -> String
  {
    let address = DeviceAddress.newNtfyTopic()
    guard case .ntfy(let topic) = address else { preconditionFailure("not an ntfy address") }
    try await Directory(pool: db.pool).addDevice(userID: "u-1", address: address)
    if answer != nil || retryAfter != nil || delayMs != nil {
      try await sandbox.program(
        topic: topic, answer: answer, retryAfter: retryAfter, delayMs: delayMs)
    }
    return topic
  }

  /// One pushed alarm of `kind` queued to every device, with a photo when `photo`; returns
  /// its event id.
  @discardableResult
  func alarm(kind: String = "mower_lifted", alarmClass: String = "theft", photo: Bool = false)
    async throws -> UUID
  {
    let eventID = UUID()
    let imageID: UUID? = photo ? UUID() : nil
    try await db.pool.query(
      """
      WITH alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            mower_name, decision, photo, recipients)
        VALUES (\(eventID), 'm-1', \(kind), \(alarmClass), now(), now(), 'Robbie',
                'pushed', 'none', 1)
        RETURNING event_id
      ), notification AS (
        INSERT INTO notifications (notification_id, event_id, user_id, image_id)
        SELECT gen_random_uuid(), event_id, 'u-1', \(imageID) FROM alarm
        RETURNING notification_id
      )
      INSERT INTO deliveries (notification_id, device_id, platform)
      SELECT notification_id, device_id, platform FROM notification, devices
      """)
    return eventID
  }

  /// The photo's follow-up of `eventID`'s alarm to each device that got it, as the
  /// PhotoWorker queues it once the photo is captured.
  func followUp(_ eventID: UUID) async throws {
    try await db.pool.query(
      """
      INSERT INTO deliveries (notification_id, device_id, platform, followup)
      SELECT d.notification_id, d.device_id, d.platform, true
      FROM deliveries d JOIN notifications n ON n.notification_id = d.notification_id
      WHERE n.event_id = \(eventID) AND NOT d.followup
      """)
  }

  /// The notification id of `eventID`'s alarm, as its sequence id.
  func sequenceID(_ eventID: UUID) async throws -> String {
    let rows = try await db.pool.query(
      "SELECT notification_id FROM notifications WHERE event_id = \(eventID)")
    return try rows[0].uuid("notification_id").uuidString.lowercased()
  }

  func count(_ sql: SQL) async throws -> Int { try await db.count(sql) }

  func story(_ eventID: UUID) async throws -> [RecordedEvent] {
    try await EventLog().story(of: eventID, pool: db.pool)
  }

  func stop() { sandbox.stop() }
}
