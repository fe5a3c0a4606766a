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

  /// Queues the follow-ups of `imageID`'s notifications and returns their `delivery.queued`
  /// events.
  func queue(imageID: UUID, eventID: UUID, tx: Transaction) throws -> [NewEvent] {
    try tx.query(
      """
      INSERT INTO deliveries (notification_id, device_id, platform, followup)
      SELECT d.notification_id, d.device_id, d.platform, true
      FROM notifications n
      JOIN deliveries d ON d.notification_id = n.notification_id AND NOT d.followup
      JOIN devices v ON v.device_id = d.device_id AND v.active
      WHERE n.image_id = \(imageID) AND d.platform <> 'apns'
        AND n.created_at > now() - make_interval(secs => \(windowSeconds))
      ORDER BY d.notification_id, d.device_id
      ON CONFLICT (notification_id, device_id, followup) DO NOTHING
      RETURNING delivery_id, notification_id, device_id, platform,
        (SELECT token FROM devices WHERE devices.device_id = deliveries.device_id) AS address
      """
    ).map { row in
      let platform = DevicePlatform(rawValue: try row.string("platform")) ?? .webpush
      return NewEvent(
        DeliveryQueued(
          deliveryID: try row.uuid("delivery_id"), notificationID: try row.uuid("notification_id"),
          deviceID: try row.uuid("device_id"), platform: platform, environment: nil,
          tokenPrefix: Directory.addressPrefix(try row.string("address"), platform: platform),
          followup: true),
        correlationID: eventID)
    }
  }
}
