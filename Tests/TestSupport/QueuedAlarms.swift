import Events
import Foundation
import Infrastructure

extension TestDatabase {
  /// One pushed theft alarm of `mowerID` ("Robbie", lifted) for `userID`, with a delivery
  /// queued to each of that user's devices, as the fan-out leaves them for the channel
  /// workers; with `imageID`, the notification has a photo, and with `followup`, each
  /// device also gets the photo's follow-up, as the PhotoWorker queues it. Returns the
  /// alarm's event id.
  @discardableResult
  public func queuePushedAlarm(
    mowerID: String = "m-1", userID: String = "u-1", imageID: UUID? = nil,
    followup: Bool = false
  ) async throws -> UUID {
    let eventID = UUID()
    try await pool.query(
      """
      WITH alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            mower_name, decision, photo, recipients)
        VALUES (\(eventID), \(mowerID), 'mower_lifted', 'theft', now(), now(), 'Robbie',
                'pushed', 'none', 1)
        RETURNING event_id
      ), notification AS (
        INSERT INTO notifications (notification_id, event_id, user_id, image_id)
        SELECT gen_random_uuid(), event_id, \(userID), \(imageID)::uuid FROM alarm
        RETURNING notification_id
      )
      INSERT INTO deliveries (notification_id, device_id, platform, followup)
      SELECT notification_id, device_id, platform, f
      FROM notification, devices, unnest(ARRAY[false, \(followup)]) AS f
      WHERE devices.user_id = \(userID)
      ON CONFLICT DO NOTHING
      """)
    return eventID
  }
}

extension TestDatabase {
  /// Waits until a worker holds `count` deliveries on their first attempt: what a crash
  /// test waits for before it kills that worker.
  public func waitUntilFirstAttemptsLeased(_ count: Int, timeout: Duration = .seconds(30))
    async throws
  {
    try await eventually(timeout: timeout, "a worker to hold \(count) deliveries") {
      try await self.count(
        "SELECT count(*) AS n FROM deliveries WHERE lease_token IS NOT NULL AND attempts = 1")
        == count
    }
  }
}
