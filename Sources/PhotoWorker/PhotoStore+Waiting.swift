import Events
import Infrastructure

extension PhotoStore {
  /// What waits for the photo stage: reservations pending and held by nobody (any worker
  /// could claim them now), and how long the oldest pending one has waited.
  func waiting() async throws -> (claimable: Int, oldestAgeSeconds: Double) {
    let row = try await pool.query(
      """
      SELECT count(*) FILTER (WHERE lease_expires_at IS NULL OR lease_expires_at < now())
               AS claimable,
             coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest
      FROM photo_reservations WHERE state = 'pending'
      """)[0]
    return (try row.int("claimable"), try row.optionalDouble("oldest") ?? 0)
  }
}
