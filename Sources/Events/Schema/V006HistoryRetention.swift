import Infrastructure

extension Migration {
  /// Indexes by age for the PruneWorker's removal of old alarms and handled-message rows
  /// (ADR 0018): each batch finds its oldest rows without reading the table.
  static let v006HistoryRetention = Migration(
    version: 6, name: "history retention",
    sql: """
      CREATE INDEX alarms_by_received_at ON alarms (received_at);
      CREATE INDEX ingress_messages_by_handled_at ON ingress_messages (handled_at);
      """)
}
