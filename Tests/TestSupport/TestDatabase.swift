import Events
import Foundation
import Infrastructure

/// A schema of its own for one test, migrated, with a pool whose connections use it.
public struct TestDatabase: Sendable {
  public let schema: String
  /// The URL that puts every connection in this schema (for worker processes too).
  public let url: String
  public let pool: DatabasePool

  /// Creates and migrates a fresh schema.
  /// - Parameter baseURL: another server's database (a test that restarts its own server).
  public static func make(migrated: Bool = true, baseURL: String? = nil) async throws
    -> TestDatabase
  {
    let base = try baseURL ?? TestServers.databaseURL()
    let schema =
      "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
    let admin = DatabasePool(url: base, applicationName: "test-admin", maxConnections: 1)
    try await admin.query("CREATE SCHEMA \(identifier: schema)")
    await admin.close()
    let separator = base.contains("?") ? "&" : "?"
    let url = base + separator + "options=-csearch_path%3D" + schema
    let pool = DatabasePool(url: url, applicationName: "test", maxConnections: 8)
    if migrated { try await Migrator(pool: pool, logger: TestServers.logger).migrate() }
    return TestDatabase(schema: schema, url: url, pool: pool)
  }

  /// This schema's URL with connections named `name` in pg_stat_activity: for a test that
  /// cuts its own workers' connections and must not cut other tests' at the same time.
  public func url(applicationName name: String) -> String {
    url + "&application_name=" + name
  }

  /// One integer from a query such as `SELECT count(*) AS n FROM ...`.
  public func count(_ sql: SQL) async throws -> Int {
    try await pool.query(sql)[0].int("n")
  }

  /// Loads the directory of the recorded fleet.
  public func importFleet40() async throws {
    try await Directory(pool: pool).importFleet(
      try FleetFile.load(path: TestServers.fixture("fleet40.fleet.json")))
  }

  /// Reserves photos as the fan-out does: an alarm row and a pending reservation each, for
  /// mowers `<mowerPrefix>1` ... (or all for `mower` when given). Returns the image ids.
  @discardableResult
  public func reservePhotos(
    count: Int, mower: String? = nil, mowerPrefix: String = "m-", createdSecondsAgo: Double = 0
  ) async throws -> [UUID] {
    try await pool.query(
      """
      WITH ids AS (
        SELECT gen_random_uuid() AS event_id, gen_random_uuid() AS image_id,
               coalesce(\(mower), \(mowerPrefix) || g) AS mower_id
        FROM generate_series(1, \(count)) g
      ), alarm AS (
        INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                            decision, photo, recipients)
        SELECT event_id, mower_id, 'mower_lifted', 'theft', now(), now(), 'pushed', 'reserved', 1
        FROM ids
      )
      INSERT INTO photo_reservations (image_id, event_id, mower_id, reserved_on, created_at)
      SELECT image_id, event_id, mower_id, now(), now() - make_interval(secs => \(createdSecondsAgo))
      FROM ids
      RETURNING image_id
      """
    ).map { try $0.uuid("image_id") }
  }
}
