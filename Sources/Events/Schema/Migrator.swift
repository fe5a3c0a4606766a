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
      // A newer build migrated this database: its tables may have changed in ways this
      // build would misread or damage. Refused, not retried (SchemaTooNew).
      if let newest = applied.max(), let known = migrations.map(\.version).max(), newest > known {
        throw SchemaTooNew(found: newest, known: known)
      }
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
  /// before its database). Throws only when the task is cancelled, a step is wrong, or
  /// the schema is newer than this build (`SchemaTooNew`, which ends the worker with
  /// status 2).
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

/// The database's schema has a version above the newest this build knows: an older binary
/// started after a newer one migrated. Every worker migrates at start, so every worker
/// refuses, with one line naming both versions.
public struct SchemaTooNew: StartRefusal, Equatable {
  public let found: Int
  public let known: Int

  public init(found: Int, known: Int) {
    self.found = found
    self.known = known
  }

  public var description: String {
    "the database schema is at version \(found), newer than version \(known), the newest this"
      + " build knows: run the build that migrated it, or a newer one"
  }
}
