import Events
import Infrastructure

extension DeliveryStore {
  /// What waits for the APNs stage: deliveries due and held by nobody (any worker could
  /// take them now), and how long the oldest due delivery has waited since it was queued.
  func waiting() async throws -> (claimable: Int, oldestAgeSeconds: Double) {
    let row = try await pool.query(
      """
      SELECT count(*) FILTER (WHERE lease_expires_at IS NULL OR lease_expires_at < now())
               AS claimable,
             coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest
      FROM deliveries WHERE state = 'queued' AND platform = 'apns' AND next_attempt_at <= now()
      """)[0]
    return (try row.int("claimable"), try row.optionalDouble("oldest") ?? 0)
  }
}
