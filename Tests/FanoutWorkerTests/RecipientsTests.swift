import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import FanoutWorker

/// The recipients aggregate as PostgreSQL writes it (`json_agg` of `json_build_object`, with
/// spaces around the colons and the registration time as a numeric of seconds), read
/// through `WireCoding`.
@Suite struct RecipientsTests {
  @Test func theAggregateAsPostgreSQLWritesItIsRead() async throws {
    let db = try await TestDatabase.make(migrated: false)
    // The same functions as `FanoutStore`'s read, over literal rows.
    let text = try await db.pool.query(
      """
      SELECT coalesce(json_agg(json_build_object(
          'user_id', u.user_id,
          'devices', (SELECT coalesce(json_agg(json_build_object(
              'device_id', d.device_id, 'platform', d.platform,
              'environment', d.environment, 'token', d.token,
              'registered_at', extract(epoch FROM d.registered_at))
              ORDER BY d.registered_at), '[]')
            FROM (VALUES
              ('u1', 'AB5C3E1D-0000-4000-8000-000000000001'::uuid, 'apns', 'sandbox', 'ab',
               '2026-11-29T10:15:00.123456+00'::timestamptz),
              ('u1', 'ab5c3e1d-0000-4000-8000-000000000002'::uuid, 'apns', 'production', 'cd',
               '2026-11-29T10:15:01+00'::timestamptz),
              ('u1', 'ab5c3e1d-0000-4000-8000-000000000003'::uuid, 'webpush', NULL,
               'https://push.example/x', '2026-11-29T10:15:02+00'::timestamptz))
              AS d(user_id, device_id, platform, environment, token, registered_at)
            WHERE d.user_id = u.user_id))
          ORDER BY u.user_id), '[]')::text AS recipients
      FROM (VALUES ('u1'), ('u2')) AS u(user_id)
      """)[0].string("recipients")
    let recipients = try Recipient.decode(text)
    #expect(recipients.map(\.userID) == ["u1", "u2"])
    #expect(recipients[1].devices.isEmpty)
    let devices = recipients[0].devices
    #expect(
      devices.map(\.deviceID) == [
        UUID(uuidString: "ab5c3e1d-0000-4000-8000-000000000001")!,
        UUID(uuidString: "ab5c3e1d-0000-4000-8000-000000000002")!,
        UUID(uuidString: "ab5c3e1d-0000-4000-8000-000000000003")!,
      ])
    #expect(devices.map(\.platform) == [.apns, .apns, .webpush])
    // A device of another platform has no environment: `null` in the aggregate.
    #expect(devices.map(\.environment) == ["sandbox", "production", nil])
    #expect(devices.map(\.token) == ["ab", "cd", "https://push.example/x"])
    #expect(
      devices.map { Timestamp.format($0.registeredAt) } == [
        "2026-11-29T10:15:00.123456Z", "2026-11-29T10:15:01Z", "2026-11-29T10:15:02Z",
      ])
    #expect(try Recipient.decode("[]").isEmpty)
  }

  @Test func anAggregateThatDoesNotReadIsAnErrorNotNobody() {
    #expect(throws: WireError.self) { try Recipient.decode("") }
    #expect(throws: WireError.self) {
      try Recipient.decode(#"[{"user_id" : "u1", "devices" : [{"device_id" : "x"}]}]"#)
    }
  }
}
