import Foundation
import Infrastructure
import TestSupport
import Testing

@Suite struct SQLTests {
  @Test func interpolationNumbersParametersInOrderAndBindsValues() {
    let id = "m-1"
    let limit = 5
    let sql: SQL = "SELECT * FROM t WHERE a = \(id) AND b < \(limit) OR c = \(id)"
    #expect(sql.text == "SELECT * FROM t WHERE a = $1 AND b < $2 OR c = $3")
    #expect(sql.binds == [.text("m-1"), .text("5"), .text("m-1")])
    #expect(sql.description == sql.text)
  }

  @Test func literalWithoutInterpolationHasNoBinds() {
    let sql: SQL = "SELECT 1"
    #expect(sql.text == "SELECT 1")
    #expect(sql.binds.isEmpty)
  }

  @Test func optionalsBindNullOrTheirValue() {
    let missing: String? = nil
    let present: Int? = 7
    let sql: SQL = "VALUES (\(missing), \(present))"
    #expect(sql.text == "VALUES ($1, $2)")
    #expect(sql.binds == [.null, .text("7")])
  }

  @Test func valuesBindInTheirPostgresTextForm() throws {
    let uuid = try #require(UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"))
    let date = Date(timeIntervalSince1970: 1_795_947_300.25)
    let sql: SQL = "\(true) \(false) \(uuid) \(date) \(Int64(-3)) \(1.5) \(Bytes([0, 255]))"
    #expect(
      sql.binds == [
        .text("t"), .text("f"), .text("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
        .text("2026-11-29T10:15:00.250000Z"), .text("-3"), .text("1.5"), .binary([0, 255]),
      ])
  }

  @Test(arguments: [
    ("events", "\"events\""),
    ("t_abc", "\"t_abc\""),
    ("odd \"name\"", "\"odd \"\"name\"\"\""),
    // A quote with a combining mark is one Character; it is still doubled.
    ("q\"\u{301}x", "\"q\"\"\u{301}x\""),
    ("", "\"\""),
  ])
  func identifiersAreQuoted(name: String, quoted: String) {
    let sql: SQL = "CREATE SCHEMA \(identifier: name)"
    #expect(sql.text == "CREATE SCHEMA \(quoted)")
    #expect(sql.binds.isEmpty)
  }

  @Test(arguments: [
    ([String?](), "{}"),
    (["a"], "{\"a\"}"),
    (["a", "b"], "{\"a\",\"b\"}"),
    ([nil], "{NULL}"),
    (["NULL", nil], "{\"NULL\",NULL}"),
    ([""], "{\"\"}"),
    (["say \"hi\""], "{\"say \\\"hi\\\"\"}"),
    (["back\\slash"], "{\"back\\\\slash\"}"),
    (["a,b", "{c}"], "{\"a,b\",\"{c}\"}"),
  ])
  func arrayLiteralsQuoteAndEscapeElements(elements: [String?], literal: String) {
    let array = PostgresArray(elements)
    #expect(array.literal == literal)
    #expect(array.postgresBind == .text(literal))
  }

  static let trickyStrings: [String?] = [
    "plain", "", " ", "  padded  ", "NULL", "null", nil, "a,b", "{braces}", "}", "{", "\"",
    "\\", "\\\"", "\"\\", "say \"hi\"", "C:\\path\\", "'single'", "tab\there", "new\nline",
    "ünïcødé", "🐸 frog", "日本語", "(1,2)", "[x]", "'; DROP TABLE events; --", "\\N", "NULL ",
  ]

  @Test func unnestOfAnArrayParameterReturnsExactlyTheStrings() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let rows = try await db.pool.query(
      """
      SELECT v, n FROM unnest(\(PostgresArray(Self.trickyStrings))::text[]) WITH ORDINALITY AS u(v, n)
      ORDER BY n
      """)
    #expect(rows.count == Self.trickyStrings.count)
    let values = try rows.map { try $0.optionalString("v") }
    #expect(values == Self.trickyStrings)
  }

  @Test func uuidArraysRoundTripWithNulls() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let ids: [UUID?] = [UUID(), nil, UUID()]
    let rows = try await db.pool.query(
      """
      SELECT v FROM unnest(\(PostgresArray(ids))::uuid[]) WITH ORDINALITY AS u(v, n) ORDER BY n
      """)
    #expect(try rows.map { try $0.optionalUUID("v") } == ids)
  }

  @Test func boundValuesAreNeverSpliced() async throws {
    let db = try await TestDatabase.make(migrated: false)
    try await db.pool.query("CREATE TABLE victims (name text)")
    let hostile = "x'); DROP TABLE victims; --"
    try await db.pool.query("INSERT INTO victims (name) VALUES (\(hostile))")
    let rows = try await db.pool.query("SELECT name FROM victims")
    #expect(try rows.map { try $0.string("name") } == [hostile])
  }

  @Test func quotedIdentifiersNameTheRightTable() async throws {
    let db = try await TestDatabase.make(migrated: false)
    let name = "odd \"table\" name"
    try await db.pool.query("CREATE TABLE \(identifier: name) (x int)")
    try await db.pool.query("INSERT INTO \(identifier: name) VALUES (\(41)), (\(1))")
    #expect(try await db.count("SELECT sum(x) AS n FROM \(identifier: name)") == 42)
  }

  @Test func fragmentsAreSplicedWithTheirPlaceholdersRenumbered() async throws {
    let inner: SQL = "SELECT \(1)::int AS a, \(2)::int AS b"
    let outer: SQL = "WITH x AS (\(fragment: inner)) SELECT a + b * \(10)::int AS n FROM x"
    #expect(
      outer.text
        == "WITH x AS (SELECT $1::int AS a, $2::int AS b) SELECT a + b * $3::int AS n FROM x")
    #expect(outer.binds == [.text("1"), .text("2"), .text("10")])

    let many: SQL = "SELECT \(Array(repeating: "x", count: 12).joined())::text AS p"
    let shifted: SQL =
      "SELECT \(1)::int, \(2)::int, \(3)::int, \(4)::int, \(5)::int, \(6)::int, \(7)::int, \(8)::int, \(9)::int, (\(fragment: many))"
    #expect(shifted.text.hasSuffix("(SELECT $10::text AS p)"))

    let db = try await TestDatabase.make(migrated: false)
    #expect(try await db.count("SELECT \(100)::int + n AS n FROM (\(fragment: outer)) o") == 121)
  }
}
