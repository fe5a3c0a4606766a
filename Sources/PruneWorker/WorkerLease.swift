import Events
import FoundationEssentials
import Infrastructure

/// A named lease in PostgreSQL: whoever holds it does installation-wide work (one prune at
/// a time, however many replicas run). It expires unless renewed, so a killed holder only
/// delays the work by the lease length.
public struct WorkerLease: Sendable {
  public let name: String
  public let holder: String
  public let seconds: Int
  private let pool: DatabasePool

  public init(
    name: String, holder: String = UUID().uuidString.lowercased(), seconds: Int = 60,
    pool: DatabasePool
  ) {
    self.name = name
    self.holder = holder
    self.seconds = seconds
    self.pool = pool
  }

  /// Takes or renews the lease; false when another holder has it.
  public func acquire() async throws -> Bool {
    let rows = try await pool.query(
      """
      INSERT INTO worker_leases (name, holder, expires_at)
      VALUES (\(name), \(holder), now() + make_interval(secs => \(seconds)))
      ON CONFLICT (name) DO UPDATE
        SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
        WHERE worker_leases.holder = EXCLUDED.holder OR worker_leases.expires_at < now()
      RETURNING holder
      """)
    return !rows.isEmpty
  }

  /// Gives the lease up (after a clean stop), so another replica need not wait for it.
  public func release() async throws {
    try await pool.query("DELETE FROM worker_leases WHERE name = \(name) AND holder = \(holder)")
  }
}
