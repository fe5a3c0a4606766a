import Infrastructure

extension Migration {
  /// Leases that let one replica at a time do installation-wide work (pruning), and the
  /// cursors of event-log readers, which retention must not pass.
  static let v005Maintenance = Migration(
    version: 5, name: "maintenance",
    sql: """
      CREATE TABLE worker_leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE TABLE event_cursors (
        reader text PRIMARY KEY,
        tx_id xid8 NOT NULL,
        position bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      """)
}
