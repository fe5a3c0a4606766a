import Events
import FoundationEssentials
import Infrastructure

/// The photo's follow-up (docs/interfaces.md#photo-follow-up): the Web Push, FCM and ntfy
/// devices have no service extension that waits for the photo, so when it is captured each
/// active one that got the alarm's message gets a second delivery, which replaces the first
/// on the device and carries a freshly signed image URL. Queued in the transaction that
/// records `photo.captured`, so that a follow-up exists exactly when the photo does; none
/// after a failed capture, none for APNs devices, none once the alarm is older than an image
/// URL's lifetime (its text has been on the device that long; a photo so late is for the
/// inbox).
struct PhotoFollowUps: Sendable {
  /// `MOWDECK_NOTIFICATIONS_IMAGE_URL_TTL_SECONDS`.
  let windowSeconds: Int

  /// Queues the follow-ups of the notifications of every photo in `captured` (image id to
  /// its alarm's event id) in one statement, and returns their `delivery.queued` events by
  /// image: one statement for a whole group of photos, however many (most fleets have no
  /// device that needs one, and then it finds nothing once, not once per photo).
  /// The deliveries are read by their notifications' ids, found first: a plan made once on
  /// a young, small table (ADR 0047) then still probes the index as the table grows, where
  /// a join had been planned as a scan of every delivery.
  func queue(captured: [UUID: UUID], tx: Transaction) throws -> [UUID: [NewEvent]] {
    guard !captured.isEmpty else { return [:] }
    var queued: [UUID: [NewEvent]] = [:]
    for row in try tx.query(
      """
      INSERT INTO deliveries (notification_id, device_id, platform, followup)
      SELECT d.notification_id, d.device_id, d.platform, true
      FROM deliveries d
      JOIN devices v ON v.device_id = d.device_id AND v.active
      WHERE d.notification_id = ANY(ARRAY(
          SELECT notification_id FROM notifications
          WHERE image_id = ANY(\(PostgresArray(Array(captured.keys)))::uuid[])
            AND created_at > now() - make_interval(secs => \(windowSeconds))))
        AND NOT d.followup AND d.platform <> 'apns'
      ORDER BY d.notification_id, d.device_id
      ON CONFLICT (notification_id, device_id, followup) DO NOTHING
      RETURNING delivery_id, notification_id, device_id, platform,
        (SELECT token FROM devices WHERE devices.device_id = deliveries.device_id) AS address,
        (SELECT image_id FROM notifications
         WHERE notifications.notification_id = deliveries.notification_id) AS image_id
      """
    ) {
      let imageID = try row.uuid("image_id")
      // The statement reads only these images' notifications.
      guard let eventID = captured[imageID] else {
        preconditionFailure("a follow-up for image \(imageID), which this group did not capture")
      }
      let platform = DevicePlatform(rawValue: try row.string("platform")) ?? .webpush
      queued[imageID, default: []].append(
        NewEvent(
          DeliveryQueued(
            deliveryID: try row.uuid("delivery_id"),
            notificationID: try row.uuid("notification_id"),
            deviceID: try row.uuid("device_id"), platform: platform, environment: nil,
            tokenPrefix: Directory.addressPrefix(try row.string("address"), platform: platform),
            followup: true),
          correlationID: eventID))
    }
    return queued
  }
}
