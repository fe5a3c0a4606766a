import Infrastructure

/// Applies pending migrations under a transaction-scoped advisory lock, so that several
/// workers starting at once apply each step exactly once.
public struct Migrator: Sendable {
  private let pool: DatabasePool
  private let logger: Logger

  public init(pool: DatabasePool, logger: Logger) {
    self.pool = pool
    self.logger = logger
  }

  /// Returns the versions it applied (empty when the schema was current).
  @discardableResult
  public func migrate(_ migrations: [Migration] = Migration.all) async throws -> [Int] {
    try await pool.withTransaction { tx in
      // Keyed by schema, so test schemas in one database migrate independently.
      try tx.query("SELECT pg_advisory_xact_lock(hashtext('mowdeck.migrate.' || current_schema()))")
      try tx.execute(
        """
        CREATE TABLE IF NOT EXISTS schema_migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )
        """)
      let applied = Set(
        try tx.query("SELECT version FROM schema_migrations").map { try $0.int("version") })
      var done: [Int] = []
      for migration in migrations where !applied.contains(migration.version) {
        try tx.execute(migration.sql)
        try tx.query(
          "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))"
        )
        logger.info("migration applied", ["version": migration.version, "name": migration.name])
        done.append(migration.version)
      }
      return done
    }
  }

  /// Migrates, waiting with backoff while PostgreSQL is unreachable (a worker starting
  /// before its database). Throws only when the task is cancelled or a step is wrong.
  public func migrateWhenReachable() async throws {
    var backoff = Backoff(initial: 0.2, maximum: 5)
    while true {
      do {
        try await migrate()
        return
      } catch let error as DatabaseError where error.isConnectionProblem {
        logger.warning("database not reachable, retrying", ["error": error])
        guard await backoff.wait() else { throw CancellationError() }
      }
    }
  }
}
