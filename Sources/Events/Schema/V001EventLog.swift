import Infrastructure

extension Migration {
  /// The append-only event log (docs/interfaces.md#event-log). `tx_id` lets readers tail the log
  /// without skipping rows of transactions that commit after a later position (ADR 0003).
  static let v001EventLog = Migration(
    version: 1, name: "event log",
    sql: """
      CREATE TABLE events (
        position bigserial PRIMARY KEY,
        tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        type text NOT NULL,
        correlation_id uuid NOT NULL,
        causation_id uuid,
        data jsonb NOT NULL DEFAULT '{}'::jsonb
      );
      CREATE INDEX events_by_correlation ON events (correlation_id, position);
      CREATE INDEX events_by_tail ON events (tx_id, position);
      CREATE INDEX events_by_recorded_at ON events (recorded_at);
      CREATE INDEX events_by_type ON events (type, position);

      -- Append-only: an UPDATE is refused outright; DELETE stays possible for retention.
      CREATE FUNCTION events_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'events are append-only';
      END $$;
      CREATE TRIGGER events_append_only BEFORE UPDATE ON events
        FOR EACH ROW EXECUTE FUNCTION events_refuse_update();
      """)
}
