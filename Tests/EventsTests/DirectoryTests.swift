import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@Suite struct DirectoryTests {
  static let token = String(repeating: "0123456789abcdef", count: 4)

  func counts(_ db: TestDatabase) async throws -> [Int] {
    var result: [Int] = []
    for table in ["users", "mowers", "grants", "devices"] {
      result.append(try await db.count("SELECT count(*) AS n FROM \(identifier: table)"))
    }
    return result
  }

  @Test func importingTheFleetTwiceGivesTheSameDirectory() async throws {
    let db = try await TestDatabase.make()
    try await db.importFleet40()
    #expect(try await counts(db) == [66, 40, 66, 71])
    try await db.importFleet40()
    #expect(try await counts(db) == [66, 40, 66, 71])
    #expect(try await db.count("SELECT count(*) AS n FROM devices WHERE NOT active") == 0)
    #expect(
      try await db.count("SELECT count(*) AS n FROM devices WHERE token <> lower(token)") == 0)
  }

  @Test func importedRowsMatchTheFile() async throws {
    let db = try await TestDatabase.make()
    let fleet = try FleetFile.load(path: TestServers.fixture("fleet40.fleet.json"))
    try await db.importFleet40()
    let names = try await db.pool.query("SELECT user_id, name FROM users")
    let stored = Dictionary(
      uniqueKeysWithValues: try names.map { (try $0.string("user_id"), try $0.string("name")) })
    #expect(stored == Dictionary(uniqueKeysWithValues: fleet.users.map { ($0.userID, $0.name) }))
    let grants = try await db.pool.query("SELECT mower_id || '/' || user_id AS g FROM grants")
    #expect(
      Set(try grants.map { try $0.string("g") })
        == Set(fleet.grants.map { $0.mowerID + "/" + $0.userID }))
  }

  static let badTokens = [
    "",
    "abc",
    String(repeating: "a", count: 63),
    String(repeating: "a", count: 65),
    String(repeating: "a", count: 63) + "g",
    String(repeating: "a", count: 63) + " ",
    String(repeating: "a", count: 62) + "é",
    String(repeating: "ab", count: 16) + "-" + String(repeating: "ab", count: 15) + "a",
  ]

  @Test(arguments: badTokens)
  func validateRejectsATokenThatIsNot64HexDigits(token: String) {
    #expect(throws: Directory.Failure.invalidToken) { try Directory.validate(token: token) }
  }

  @Test(arguments: [token, token.uppercased(), String(repeating: "F", count: 64)])
  func validateAcceptsHexOfEitherCase(token: String) throws {
    try Directory.validate(token: token)
  }

  @Test func addDeviceRejectsBadTokensAndUnknownEnvironments() async throws {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u1", name: "One")
    for token in Self.badTokens {
      await #expect(throws: Directory.Failure.invalidToken) {
        try await directory.addDevice(userID: "u1", token: token, environment: "sandbox")
      }
    }
    for environment in ["staging", "", "Sandbox", "PRODUCTION"] {
      await #expect(throws: Directory.Failure.invalidEnvironment(environment)) {
        try await directory.addDevice(userID: "u1", token: Self.token, environment: environment)
      }
    }
    #expect(try await db.count("SELECT count(*) AS n FROM devices") == 0)
    try await directory.addDevice(userID: "u1", token: Self.token, environment: "sandbox")
    #expect(try await db.count("SELECT count(*) AS n FROM devices") == 1)
  }

  @Test func addDeviceNeedsAKnownUser() async throws {
    let db = try await TestDatabase.make()
    await #expect(throws: Directory.Failure.unknownUser("ghost")) {
      try await Directory(pool: db.pool).addDevice(
        userID: "ghost", token: Self.token, environment: "production")
    }
  }

  @Test func aTokenRegisteredAgainMovesToTheNewUserAndIsReactivated() async throws {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u1", name: "One")
    try await directory.addUser(id: "u2", name: "Two")
    let first = try await directory.addDevice(
      userID: "u1", token: Self.token.uppercased(), environment: "sandbox")
    try await db.pool.query("UPDATE devices SET active = false, deactivated_at = now()")
    let second = try await directory.addDevice(
      userID: "u2", token: Self.token, environment: "production")
    #expect(first == second)
    let rows = try await db.pool.query(
      "SELECT user_id, token, environment, active, deactivated_at FROM devices")
    try #require(rows.count == 1)
    #expect(try rows[0].string("user_id") == "u2")
    #expect(try rows[0].string("token") == Self.token)
    #expect(try rows[0].string("environment") == "production")
    #expect(try rows[0].bool("active"))
    #expect(try rows[0].optionalString("deactivated_at") == nil)
    #expect(try await directory.removeDevice(userID: "u1", token: Self.token) == false)
    #expect(try await directory.removeDevice(userID: "u2", token: Self.token.uppercased()))
    #expect(try await db.count("SELECT count(*) AS n FROM devices") == 0)
  }

  @Test func grantCreatesTheMowerAndNeedsAKnownUser() async throws {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    await #expect(throws: Directory.Failure.unknownUser("ghost")) {
      try await directory.grant(mowerID: "m1", userID: "ghost")
    }
    try await directory.addUser(id: "u1", name: "One")
    try await directory.addMower(id: "m1", name: "Front lawn")
    try await directory.grant(mowerID: "m1", userID: "u1")
    try await directory.grant(mowerID: "m1", userID: "u1")
    try await directory.grant(mowerID: "m2", userID: "u1")
    #expect(try await db.count("SELECT count(*) AS n FROM grants") == 2)
    let names = try await db.pool.query("SELECT mower_id, name FROM mowers ORDER BY mower_id")
    #expect(try names.map { try $0.optionalString("name") } == ["Front lawn", nil])
  }

  @Test func sessionsStoreOnlyTheHashOfTheirToken() async throws {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u1", name: "One")
    let token = try await directory.createSession(userID: "u1")
    #expect(token.count >= 32)
    let other = try await directory.createSession(userID: "u1")
    #expect(other != token)

    let leaks = try await db.count(
      "SELECT count(*) AS n FROM sessions WHERE strpos(sessions::text, \(token)) > 0")
    #expect(leaks == 0)
    let hashed = try await db.count(
      """
      SELECT count(*) AS n FROM sessions
      WHERE token_hash = encode(sha256(convert_to(\(token), 'UTF8')), 'hex') AND user_id = 'u1'
      """)
    #expect(hashed == 1)
    #expect(try await directory.user(forSessionToken: token) == "u1")
    #expect(try await directory.user(forSessionToken: other) == "u1")
    #expect(try await directory.user(forSessionToken: token + "0") == nil)
    #expect(try await directory.user(forSessionToken: "") == nil)

    try await directory.revokeSession(token: token)
    #expect(try await directory.user(forSessionToken: token) == nil)
    #expect(try await directory.user(forSessionToken: other) == "u1")
  }

  @Test func anExpiredSessionResolvesToNobody() async throws {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u1", name: "One")
    let token = try await directory.createSession(userID: "u1", lifetime: -1)
    #expect(try await directory.user(forSessionToken: token) == nil)
    await #expect(throws: Directory.Failure.unknownUser("ghost")) {
      try await directory.createSession(userID: "ghost")
    }
  }
}
