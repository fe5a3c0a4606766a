import Infrastructure

extension Migration {
  /// Ingress bookkeeping and the per-mower decision state (docs/interfaces.md#alarm-classes and
  /// #ingress-alarm).
  static let v003Alarms = Migration(
    version: 3, name: "alarms",
    sql: """
      -- One row per JetStream message handled: makes a redelivered message a no-op, even
      -- a rejected one, and tells `mowdeck replay` that a message was decided.
      CREATE TABLE ingress_messages (
        stream_seq bigint PRIMARY KEY,
        correlation_id uuid NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('decided', 'duplicate', 'rejected')),
        handled_at timestamptz NOT NULL DEFAULT now()
      );
      -- One row per distinct alarm event_id: the idempotency key of the whole pipeline.
      CREATE TABLE alarms (
        event_id uuid PRIMARY KEY,
        mower_id text NOT NULL,
        kind text NOT NULL,
        alarm_class text NOT NULL,
        occurred_at timestamptz NOT NULL,
        decided_on timestamptz NOT NULL,
        mower_name text,
        reason text,
        decision text NOT NULL CHECK (decision IN ('pushed', 'suppressed')),
        photo text,
        recipients integer NOT NULL DEFAULT 0,
        received_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX alarms_by_mower ON alarms (mower_id, decided_on);
      -- Locked FOR UPDATE by every decision about the mower: decisions about one mower are
      -- taken one at a time, whichever replica takes them.
      CREATE TABLE mower_state (
        mower_id text PRIMARY KEY,
        last_theft_push_at timestamptz,
        last_error_push_at timestamptz,
        last_photo_at timestamptz,
        -- Decision times of the photo reservations of the last 24 hours, kept on the locked
        -- row so the budget is read with the lock, not from an older snapshot.
        photo_times timestamptz[] NOT NULL DEFAULT '{}'
      );
      -- One reserved photo per alarm; failed captures keep their row, since they count
      -- against the daily budget too. Claimed by PhotoWorker with a lease and fencing token.
      CREATE TABLE photo_reservations (
        image_id uuid PRIMARY KEY,
        event_id uuid NOT NULL UNIQUE REFERENCES alarms,
        mower_id text NOT NULL,
        reserved_on timestamptz NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'captured', 'failed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        attempts integer NOT NULL DEFAULT 0,
        lease_token bigint,
        lease_expires_at timestamptz,
        finished_at timestamptz
      );
      CREATE INDEX photo_reservations_budget ON photo_reservations (mower_id, reserved_on);
      CREATE INDEX photo_reservations_pending ON photo_reservations (created_at)
        WHERE state = 'pending';
      CREATE SEQUENCE lease_tokens;
      """)
}
