import Infrastructure

extension Migration {
  /// Devices of every platform (docs/interfaces.md#devices): `apns`, `webpush`, `fcm` and
  /// `ntfy`. `token` keeps the platform's address of the device (an APNs token, a Web Push
  /// endpoint, an FCM registration token, an ntfy topic), unique per platform; only APNs
  /// devices have an `environment`, only Web Push ones their subscription's keys. A delivery
  /// carries its device's platform, so that each platform's worker claims only its own, and
  /// whether it is the photo's follow-up: a second message to the same device that replaces
  /// the first (docs/interfaces.md#photo-follow-up).
  static let v008DevicePlatforms = Migration(
    version: 8, name: "device platforms",
    sql: """
      ALTER TABLE devices ADD COLUMN platform text NOT NULL DEFAULT 'apns'
        CHECK (platform IN ('apns', 'webpush', 'fcm', 'ntfy'));
      ALTER TABLE devices ADD COLUMN webpush_p256dh text, ADD COLUMN webpush_auth text;
      ALTER TABLE devices ALTER COLUMN environment DROP NOT NULL;
      ALTER TABLE devices DROP CONSTRAINT devices_environment_check;
      ALTER TABLE devices ADD CONSTRAINT devices_environment_check CHECK (
        CASE WHEN platform = 'apns'
          THEN environment IS NOT NULL AND environment IN ('sandbox', 'production')
          ELSE environment IS NULL END);
      ALTER TABLE devices ADD CONSTRAINT devices_webpush_keys CHECK (
        (platform = 'webpush') = (webpush_p256dh IS NOT NULL AND webpush_auth IS NOT NULL));
      ALTER TABLE devices DROP CONSTRAINT devices_token_key;
      ALTER TABLE devices ADD CONSTRAINT devices_platform_token_key UNIQUE (platform, token);
      ALTER TABLE deliveries ADD COLUMN platform text NOT NULL DEFAULT 'apns',
        ADD COLUMN followup boolean NOT NULL DEFAULT false;
      ALTER TABLE deliveries DROP CONSTRAINT deliveries_notification_id_device_id_key;
      ALTER TABLE deliveries ADD CONSTRAINT deliveries_once_per_message
        UNIQUE (notification_id, device_id, followup);
      CREATE INDEX notifications_by_image ON notifications (image_id) WHERE image_id IS NOT NULL;
      DROP INDEX deliveries_due;
      CREATE INDEX deliveries_due ON deliveries (platform, next_attempt_at)
        WHERE state = 'queued';
      """)
}
