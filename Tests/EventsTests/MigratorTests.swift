import Events
import Infrastructure
import TestSupport
import Testing

@Suite struct MigratorTests {
  @Test func freshSchemaGetsTheContractsEventsColumns() async throws {
    let db = try await TestDatabase.make()
    let rows = try await db.pool.query(
      """
      SELECT column_name, data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = \(db.schema) AND table_name = 'events'
      """)
    var columns: [String: (type: String, nullable: String)] = [:]
    for row in rows {
      columns[try row.string("column_name")] = (
        try row.string("data_type"), try row.string("is_nullable")
      )
    }
    let expected: [(String, String, String)] = [
      ("position", "bigint", "NO"),
      ("recorded_at", "timestamp with time zone", "NO"),
      ("type", "text", "NO"),
      ("correlation_id", "uuid", "NO"),
      ("causation_id", "uuid", "YES"),
      ("data", "jsonb", "NO"),
    ]
    for (name, type, nullable) in expected {
      let column = try #require(columns[name], "events.\(name) is missing")
      #expect(column.type == type, "events.\(name)")
      #expect(column.nullable == nullable, "events.\(name)")
    }
  }

  @Test func freshSchemaRecordsEveryMigration() async throws {
    let db = try await TestDatabase.make()
    let versions = try await db.pool.query("SELECT version FROM schema_migrations ORDER BY version")
      .map { try $0.int("version") }
    #expect(versions == Migration.all.map(\.version))
    #expect(versions == versions.sorted())
    #expect(Set(versions).count == versions.count)
  }

  @Test func migratingAgainAppliesNothing() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let migrator = Migrator(pool: db.pool, logger: TestServers.logger)
    let first = try await migrator.migrate()
    #expect(first == Migration.all.map(\.version))
    let second = try await migrator.migrate()
    #expect(second.isEmpty)
    #expect(
      try await db.count("SELECT count(*) AS n FROM schema_migrations") == Migration.all.count)
  }

  @Test func concurrentMigratorsApplyEachVersionOnce() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
      for _ in 0..<5 {
        group.addTask {
          try await Migrator(pool: db.pool, logger: TestServers.logger).migrate()
        }
      }
      var all: [[Int]] = []
      for try await versions in group { all.append(versions) }
      return all
    }
    #expect(applied.count == 5)
    #expect(applied.flatMap { $0 }.sorted() == Migration.all.map(\.version))
    #expect(applied.filter { !$0.isEmpty }.count == 1)
    #expect(
      try await db.count("SELECT count(*) AS n FROM schema_migrations") == Migration.all.count)
  }

  @Test func schemasMigrateIndependently() async throws {
    let first = try await TestDatabase.make()
    let second = try await TestDatabase.make(migrated: false)
    #expect(
      try await second.count(
        "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = \(second.schema)"
      ) == 0)
    #expect(try await first.count("SELECT count(*) AS n FROM events") == 0)
  }

  @Test func updatingAnEventIsRefused() async throws {
    let db = try await TestDatabase.make()
    try await db.pool.query(
      "INSERT INTO events (type, correlation_id) VALUES ('alarm.received', gen_random_uuid())")
    do {
      try await db.pool.query("UPDATE events SET type = 'alarm.rejected'")
      Issue.record("UPDATE events should be refused")
    } catch let error as DatabaseError {
      #expect(String(describing: error).contains("append-only"), "\(error)")
    }
    #expect(
      try await db.count("SELECT count(*) AS n FROM events WHERE type = 'alarm.received'") == 1)
    // Retention may still delete.
    try await db.pool.query("DELETE FROM events")
    #expect(try await db.count("SELECT count(*) AS n FROM events") == 0)
  }

  @Test func aFailingStepIsNotRecordedAndCanBeFixed() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let migrator = Migrator(pool: db.pool, logger: TestServers.logger)
    let good = Migration(version: 1, name: "good", sql: "CREATE TABLE a (x int)")
    let broken = Migration(version: 2, name: "bad", sql: "CREATE TABLE b (x no_such_type)")
    await #expect(throws: DatabaseError.self) { try await migrator.migrate([good, broken]) }
    let fixed = Migration(version: 2, name: "bad", sql: "CREATE TABLE b (x int)")
    let applied = try await migrator.migrate([good, fixed])
    #expect(applied.contains(2))
    let versions = try await db.pool.query("SELECT version FROM schema_migrations ORDER BY 1")
      .map { try $0.int("version") }
    #expect(versions == [1, 2])
    #expect(try await db.count("SELECT count(*) AS n FROM b") == 0)
  }

  /// An older build started against a database a newer one migrated: refused, with both
  /// versions named, at once (not retried as an unreachable database is), and nothing
  /// written.
  @Test func aSchemaNewerThanTheBuildIsRefused() async throws {
    let db = try await TestDatabase.make()
    let known = try #require(Migration.all.map(\.version).max())
    let future = known + 7
    try await db.pool.query(
      "INSERT INTO schema_migrations (version, name) VALUES (\(future), 'from_a_newer_build')")
    let migrator = Migrator(pool: db.pool, logger: TestServers.logger)
    let started = ContinuousClock.now
    await #expect(throws: SchemaTooNew(found: future, known: known)) {
      try await migrator.migrateWhenReachable()
    }
    #expect(ContinuousClock.now - started < .seconds(5))
    let line = SchemaTooNew(found: future, known: known).description
    #expect(line.contains("version \(future)") && line.contains("version \(known)"))
    #expect(!line.contains("\n"))
    #expect(
      try await db.count("SELECT count(*) AS n FROM schema_migrations")
        == Migration.all.count + 1)
  }
}
