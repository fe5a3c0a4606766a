import Infrastructure

extension Migration {
  /// Idempotency by `event_id` alone (docs/interfaces.md#ingress-alarm): a JetStream stream
  /// re-created after its storage was lost numbers its messages from 1 again, so the stream
  /// sequence can no longer key the handled messages. One row per correlation id now (the alarm's
  /// `event_id`, or a digest of a payload that has none); the sequence stays as a note.
  static let v007IngressByEventID = Migration(
    version: 7, name: "ingress by event id",
    sql: """
      DELETE FROM ingress_messages WHERE stream_seq IN (
        SELECT stream_seq FROM (
          SELECT stream_seq,
                 row_number() OVER (PARTITION BY correlation_id ORDER BY stream_seq) AS n
          FROM ingress_messages) numbered
        WHERE n > 1);
      ALTER TABLE ingress_messages DROP CONSTRAINT ingress_messages_pkey;
      ALTER TABLE ingress_messages ADD CONSTRAINT ingress_messages_pkey
        PRIMARY KEY (correlation_id);
      CREATE INDEX ingress_messages_by_stream_seq ON ingress_messages (stream_seq);
      """)
}
