import Foundation
import Infrastructure
import TestSupport
import Testing

/// Statements are prepared once per connection and then only executed (ADR 0015): the
/// same answers as unprepared, the server's own errors, and a connection whose prepared
/// statement a schema change invalidated is replaced, not kept failing.
@Suite struct PreparedStatementTests {
  @Test func aStatementIsPreparedOnceAndAnsweredAlike() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let pool = DatabasePool(url: db.url, applicationName: "test", maxConnections: 1)
    defer { Task { await pool.close() } }
    for value in 1...5 {
      let row = try await pool.query("SELECT \(value)::int * 2 AS doubled")[0]
      #expect(try row.int("doubled") == value * 2)
    }
    let prepared = try await pool.query(
      """
      SELECT count(*) AS n FROM pg_prepared_statements
      WHERE statement LIKE \("SELECT $1::int * 2 AS doubled%")
      """)[0]
    #expect(try prepared.int("n") == 1)
  }

  @Test func aFailingStatementInATransactionReportsItsOwnError() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let failure = await statementFailure {
      _ = try await db.pool.withTransaction { tx in
        try tx.query("SELECT * FROM no_such_table WHERE id = \(1)")
      }
    }
    if let (state, _) = failure { #expect(state == "42P01") }
  }

  @Test func aConnectionWhoseStatementTheSchemaChangedIsReplaced() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let pool = DatabasePool(url: db.url, applicationName: "test", maxConnections: 1)
    defer { Task { await pool.close() } }
    try await pool.query("CREATE TABLE evolving (a int)")
    try await pool.query("INSERT INTO evolving VALUES (\(1))")
    let before = try await pool.withConnection { try await $0.backendPID() }
    #expect(try await pool.query("SELECT * FROM evolving WHERE a = \(1)").count == 1)
    // A newer replica's migration adds a column: the prepared `SELECT *` cannot keep its
    // result type, which PostgreSQL refuses (0A000) rather than answer differently.
    try await pool.query("ALTER TABLE evolving ADD COLUMN b int")
    do {
      try await pool.query("SELECT * FROM evolving WHERE a = \(1)")
      Issue.record("PostgreSQL should refuse the changed result type")
    } catch let error as DatabaseError {
      guard case .statementFailed("0A000", _, _, _) = error else { throw error }
    }
    // The unit of work failed once, as after any lost connection; its retry succeeds.
    let answered = try await pool.query("SELECT * FROM evolving WHERE a = \(1)")
    #expect(try await pool.withConnection { try await $0.backendPID() } != before)
    #expect(answered.count == 1)
    #expect(try answered[0].optionalString("b") == nil)
  }
}
