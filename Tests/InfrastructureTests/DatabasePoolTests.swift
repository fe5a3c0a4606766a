import Foundation
import Infrastructure
import TestSupport
import Testing

@Suite struct DatabasePoolTests {
  @Test func bindsRoundTrip() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let uuid = UUID()
    let date = try #require(Timestamp.parse("2026-11-29T10:15:00.123456Z"))
    let text = "ünïcødé 'quoted' \"double\" \\ back"
    let missing: String? = nil
    let row = try #require(
      try await db.pool.query(
        """
        SELECT \(text)::text AS text, \(Int(-9_007_199_254_740_993))::bigint AS int,
               \(true)::boolean AS yes, \(false)::boolean AS no, \(uuid)::uuid AS uuid,
               \(date)::timestamptz AS date, \(missing)::text AS missing, \(2.5)::float8 AS double
        """
      ).first)
    #expect(try row.string("text") == text)
    #expect(try row.int("int") == -9_007_199_254_740_993)
    #expect(try row.bool("yes"))
    #expect(try !row.bool("no"))
    #expect(try row.uuid("uuid") == uuid)
    #expect(try row.date("date") == date)
    #expect(try row.optionalString("missing") == nil)
    #expect(try row.optionalDouble("double") == 2.5)
  }

  @Test func everyByteValueRoundTripsThroughBytea() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let bytes = (0...255).map { UInt8($0) } + [0, 0, 255, 0]
    try await db.pool.query("CREATE TABLE blobs (id int PRIMARY KEY, b bytea)")
    try await db.pool.query(
      "INSERT INTO blobs VALUES (1, \(Bytes(bytes))), (2, \(Bytes([]))), (3, NULL)")
    let rows = try await db.pool.query(
      "SELECT b, length(b) AS n, md5(b) AS md5 FROM blobs ORDER BY id")
    #expect(try rows[0].int("n") == bytes.count)
    #expect(try rows[0].optionalBytes("b") == bytes)
    #expect(try rows[1].optionalBytes("b") == [])
    #expect(try rows[2].optionalBytes("b") == nil)
    // The server saw the very bytes, not a text rendering of them.
    let expected = try #require(
      try await db.pool.query("SELECT md5(\(Bytes(bytes))::bytea) AS md5").first)
    #expect(try rows[0].string("md5") == expected.string("md5"))
  }

  @Test func firstBytesReadsByteaInBinaryFormat() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let bytes = (0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    try await db.pool.query("CREATE TABLE blobs (id int PRIMARY KEY, b bytea)")
    try await db.pool.query(
      "INSERT INTO blobs VALUES (1, \(Bytes(bytes))), (2, \(Bytes([]))), (3, NULL)")
    #expect(try await db.pool.firstBytes("SELECT b FROM blobs WHERE id = 1") == bytes)
    #expect(try await db.pool.firstBytes("SELECT b FROM blobs WHERE id = 2") == [])
    #expect(try await db.pool.firstBytes("SELECT b FROM blobs WHERE id = 3") == nil)
    #expect(try await db.pool.firstBytes("SELECT b FROM blobs WHERE id = 4") == nil)
    await #expect(throws: DatabaseError.self) {
      try await db.pool.firstBytes("SELECT b FROM no_such_table")
    }
  }

  @Test func decodingErrorsNameTheColumn() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let row = try #require(
      try await db.pool.query("SELECT 'x' AS word, NULL::int AS nothing").first)
    #expect(throws: DatabaseError.self) { try row.int("word") }
    #expect(throws: DatabaseError.self) { try row.int("nothing") }
    #expect(throws: DatabaseError.self) { try row.string("absent") }
    do {
      _ = try row.uuid("word")
      Issue.record("a word is not a uuid")
    } catch {
      #expect(String(describing: error).contains("word"))
    }
  }

  @Test func transactionCommitsWhenTheBodyReturns() async throws {
    let db = try await TestDatabase.make(migrated: false)
    try await db.pool.query("CREATE TABLE items (n int)")
    let value = try await db.pool.withTransaction { tx in
      try tx.query("INSERT INTO items VALUES (1), (2)")
      return 42
    }
    #expect(value == 42)
    #expect(try await db.count("SELECT count(*) AS n FROM items") == 2)
  }

  struct Boom: Error {}

  @Test func transactionRollsBackWhenTheBodyThrows() async throws {
    let db = try await TestDatabase.make(migrated: false)
    // One connection, so a transaction left open would be seen by the next statement.
    let pool = DatabasePool(url: db.url, applicationName: "test-rollback", maxConnections: 1)
    try await pool.query("CREATE TABLE items (n int)")
    await #expect(throws: Boom.self) {
      try await pool.withTransaction { tx in
        try tx.query("INSERT INTO items VALUES (1)")
        throw Boom()
      }
    }
    // Also when a statement fails half-way.
    await #expect(throws: DatabaseError.self) {
      try await pool.withTransaction { tx in
        try tx.query("INSERT INTO items VALUES (2)")
        try tx.query("INSERT INTO items VALUES ('not a number')")
      }
    }
    #expect(try await db.count("SELECT count(*) AS n FROM items") == 0)
    // The connection went back to the pool outside any transaction.
    let status = try await pool.query(
      "SELECT pg_current_xact_id_if_assigned() IS NULL AS idle, count(*) AS n FROM items")
    #expect(try status[0].bool("idle"))
    #expect(try status[0].int("n") == 0)
    await pool.close()
  }

  @Test func badStatementThrowsItsSQLState() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let secret = "sk_live_51Hx9SECRETvalue"
    if let (state, error) = await statementFailure({
      try await db.pool.query("SELECT * FROM no_such_table WHERE name = \(secret)")
    }) {
      #expect(state == "42P01")
      #expect(!error.isConnectionProblem)
      #expect(!error.isUniqueViolation)
      #expect(error.description.contains("42P01"))
      #expect(!error.description.contains(secret))
    }
  }

  /// The doc comment of `DatabaseError` promises that descriptions never hold bound values,
  /// but PostgreSQL quotes the offending input in data errors (class 22).
  @Test func descriptionOfADataErrorDoesNotRevealTheBoundValue() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let secret = "sk_live_51Hx9SECRETvalue"
    if let (state, error) = await statementFailure({
      try await db.pool.query("SELECT \(secret)::int AS n")
    }) {
      #expect(state == "22P02")
      #expect(!error.description.contains(secret))
    }
  }

  @Test func uniqueViolationIsRecognised() async throws {
    let db = try await TestDatabase.make(migrated: false)
    try await db.pool.query("CREATE TABLE keys (k text PRIMARY KEY)")
    try await db.pool.query("INSERT INTO keys VALUES (\("a"))")
    do {
      try await db.pool.query("INSERT INTO keys VALUES (\("a"))")
      Issue.record("the insert should fail")
    } catch let error as DatabaseError {
      #expect(error.isUniqueViolation)
      #expect(!error.isRetryableConflict)
      #expect(!error.isConnectionProblem)
    }
  }

  /// Connections carry the component's name, unless the URL names them itself.
  @Test func theURLsApplicationNameWinsOverTheComponents() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let named = DatabasePool(
      url: db.url(applicationName: "named-" + db.schema), applicationName: "component")
    let plain = DatabasePool(url: db.url, applicationName: "component")
    let query: SQL = "SELECT current_setting('application_name') AS name"
    #expect(try await named.query(query)[0].string("name") == "named-" + db.schema)
    #expect(try await plain.query(query)[0].string("name") == "component")
    await named.close()
    await plain.close()
  }

  @Test func poolRecoversAfterItsConnectionIsTerminated() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let pool = DatabasePool(url: db.url, applicationName: "test-victim", maxConnections: 1)
    let killer = DatabasePool(url: db.url, applicationName: "test-killer", maxConnections: 1)
    let pid = try await pool.withConnection { try await $0.backendPID() }
    let terminated = try await killer.query("SELECT pg_terminate_backend(\(pid)) AS done")
    #expect(try terminated[0].bool("done"))
    try await eventually(timeout: .seconds(5), "the backend to exit") {
      try await killer.query("SELECT 1 FROM pg_stat_activity WHERE pid = \(pid)").isEmpty
    }

    // The idle connection died; the pool notices on acquire and the query does not fail.
    let rows = try await pool.query("SELECT 1 AS one")
    #expect(try rows[0].int("one") == 1)
    for _ in 0..<3 {
      let pidNow = try await pool.withConnection { try await $0.backendPID() }
      #expect(pidNow != pid)
    }
    await pool.close()
    await killer.close()
  }

  /// A failover can leave a connection on a server that became a read-only standby: its
  /// writes fail with SQLSTATE 25006. That connection is dropped, never lent again, and the
  /// failure is an outage to retry (elsewhere: libpq's `target_session_attrs=read-write`).
  /// Here every session is read-only, as a standby's are.
  @Test func aConnectionThatRefusesWritesAsReadOnlyIsDroppedFromThePool() async throws {
    let base = try TestServers.databaseURL()
    let readOnly =
      base + (base.contains("?") ? "&" : "?") + "options=-c%20default_transaction_read_only%3Don"
    let pool = DatabasePool(url: readOnly, applicationName: "test-read-only", maxConnections: 1)
    let pid = try await pool.withConnection { try await $0.backendPID() }
    do {
      try await pool.query("CREATE TABLE read_only_probe (id int)")
      Issue.record("a read-only session should refuse a write")
    } catch let error as DatabaseError {
      #expect(error.sqlState == "25006")
      #expect(error.isConnectionProblem)
      #expect(error.failureClass == .outage)
    }
    let pidAfter = try await pool.withConnection { try await $0.backendPID() }
    #expect(pidAfter != pid, "the read-only connection was lent again")
    await pool.close()
  }

  @Test func smallPoolServesManyConcurrentQueries() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let pool = DatabasePool(url: db.url, applicationName: "test-small", maxConnections: 2)
    let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
      for index in 0..<20 {
        group.addTask {
          let rows = try await pool.query("SELECT \(index)::int * 2 AS n, pg_sleep(0.05)")
          return (index, try rows[0].int("n"))
        }
      }
      var results: [(Int, Int)] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(results.count == 20)
    #expect(results.allSatisfy { $0.1 == $0.0 * 2 })
    #expect(Set(results.map(\.0)) == Set(0..<20))
    let backends = try await db.count(
      """
      SELECT count(*) AS n FROM pg_stat_activity
      WHERE application_name = 'test-small' AND datname = current_database()
      """)
    #expect(backends <= 2)
    await pool.close()
  }

  @Test func closedPoolRefusesWork() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let pool = DatabasePool(url: db.url, applicationName: "test-closed", maxConnections: 1)
    try await pool.query("SELECT 1")
    await pool.close()
    do {
      try await pool.query("SELECT 1")
      Issue.record("a closed pool should refuse work")
    } catch let error as DatabaseError {
      guard case .poolClosed = error else {
        Issue.record("unexpected \(error)")
        return
      }
    }
  }

  @Test func unreachableServerIsAConnectionProblem() async throws {
    let pool = DatabasePool(
      url: "postgresql://nobody@127.0.0.1:1/none", applicationName: "test-down", maxConnections: 1)
    do {
      try await pool.query("SELECT 1")
      Issue.record("port 1 should refuse the connection")
    } catch let error as DatabaseError {
      #expect(error.isConnectionProblem)
    }
  }

  @Test func timestamptzArraysReadBackAsDates() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let first = try #require(Timestamp.parse("2026-11-20T06:54:14Z"))
    let second = try #require(Timestamp.parse("2026-11-29T10:15:00.123456Z"))
    let row = try #require(
      try await db.pool.query(
        """
        SELECT ARRAY[\(first)::timestamptz, \(second)::timestamptz] AS two,
               '{}'::timestamptz[] AS none
        """
      ).first)
    #expect(try row.dateArray("two") == [first, second])
    #expect(try row.dateArray("none") == [])
  }
}
