import Infrastructure

extension Migration {
  /// Notifications (each one is also the user's inbox item), deliveries (the outbox of the
  /// APNs stage) and the stored photos.
  static let v004Notifications = Migration(
    version: 4, name: "notifications",
    sql: """
      CREATE TABLE notifications (
        notification_id uuid PRIMARY KEY,
        inbox_item_id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
        event_id uuid NOT NULL REFERENCES alarms,
        user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
        image_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (event_id, user_id)
      );
      CREATE INDEX notifications_inbox ON notifications (user_id, created_at DESC);
      CREATE TABLE deliveries (
        delivery_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        notification_id uuid NOT NULL REFERENCES notifications ON DELETE CASCADE,
        device_id uuid NOT NULL REFERENCES devices ON DELETE CASCADE,
        state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        lease_token bigint,
        lease_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        UNIQUE (notification_id, device_id)
      );
      CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE state = 'queued';
      CREATE TABLE notification_images (
        image_id uuid PRIMARY KEY,
        event_id uuid NOT NULL UNIQUE,
        state text NOT NULL CHECK (state IN ('captured', 'failed')),
        jpeg bytea,
        byte_size integer NOT NULL DEFAULT 0,
        failure_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        CHECK ((state = 'captured') = (jpeg IS NOT NULL))
      );
      -- JPEGs do not compress: storing them out of line without trying saves ~6 ms a photo.
      ALTER TABLE notification_images ALTER COLUMN jpeg SET STORAGE EXTERNAL;
      CREATE INDEX notification_images_by_age ON notification_images (created_at);
      CREATE INDEX notification_images_by_expiry ON notification_images (expires_at);
      """)
}
