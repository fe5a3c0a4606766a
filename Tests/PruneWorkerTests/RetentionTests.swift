import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import PruneWorker

/// Retention at each boundary, against a real PostgreSQL.
@Suite struct RetentionTests {
  let limits = ImageLimits(retentionSeconds: 24 * 3600, failedRetentionSeconds: 3600, keep: 200)

  /// Stores a photo (or marker) whose expiry lies `secondsLeft` from now.
  func store(_ db: TestDatabase, failed: Bool = false, secondsLeft: Double, createdAgo: Double = 0)
    async throws -> UUID
  {
    let image = UUID()
    try await db.pool.query(
      """
      INSERT INTO notification_images (image_id, event_id, state, jpeg, byte_size, failure_reason,
                                       created_at, expires_at)
      VALUES (\(image), \(UUID()), \(failed ? "failed" : "captured"),
              \(failed ? nil : Bytes([0xFF, 0xD8, 0xFF, 0xD9])), \(failed ? 0 : 4),
              \(failed ? "timeout" : nil), now() - make_interval(secs => \(createdAgo)),
              now() + make_interval(secs => \(secondsLeft)))
      """)
    return image
  }

  func exists(_ db: TestDatabase, _ image: UUID) async throws -> Bool {
    try await db.count("SELECT count(*) AS n FROM notification_images WHERE image_id = \(image)")
      == 1
  }

  @Test(arguments: [false, true])
  func aRowGoesTheMomentItExpiresNotBefore(failed: Bool) async throws {
    let db = try await TestDatabase.make()
    let kept = try await store(db, failed: failed, secondsLeft: 2)
    let gone = try await store(db, failed: failed, secondsLeft: -0.001)
    let removal = try await db.pool.withTransaction { tx in
      try ImageStore(limits: limits).enforceRetention(tx)
    }
    #expect(removal.expired == 1)
    #expect(try await exists(db, kept))
    #expect(!(try await exists(db, gone)))
    #expect(
      try await db.count("SELECT count(*) AS n FROM events WHERE type = 'image.expired'") == 1)
  }

  @Test func photosAndMarkersGetTheirOwnLifetimes() async throws {
    let db = try await TestDatabase.make()
    let images = ImageStore(limits: limits)
    try await db.pool.withTransaction { tx in
      _ = try images.insert(
        imageID: UUID(), eventID: UUID(), jpeg: [0xFF, 0xD8, 0xFF, 0xD9], failureReason: nil, tx: tx
      )
      _ = try images.insert(
        imageID: UUID(), eventID: UUID(), jpeg: nil, failureReason: "busy", tx: tx)
    }
    let lifetimes = try await db.pool.query(
      "SELECT state, round(extract(epoch FROM expires_at - created_at))::int AS s FROM notification_images ORDER BY state"
    )
    #expect(try lifetimes.map { try $0.int("s") } == [24 * 3600, 3600])
  }

  @Test(arguments: [199, 200, 201])
  func atMostTheNewest200AreKept(count: Int) async throws {
    let db = try await TestDatabase.make()
    var images: [UUID] = []
    for index in 0..<count {
      images.append(try await store(db, secondsLeft: 3600, createdAgo: Double(count - index)))
    }
    let removal = try await db.pool.withTransaction { tx in
      try ImageStore(limits: limits).enforceRetention(tx)
    }
    #expect(removal.pruned == max(0, count - 200))
    #expect(try await db.count("SELECT count(*) AS n FROM notification_images") == min(count, 200))
    // The oldest went, the newest stayed.
    #expect(try await exists(db, images.last!))
    #expect(try await exists(db, images.first!) == (count <= 200))
  }

  /// `keep` counts photos with bytes only (docs/interfaces.md#tables): markers newer than every
  /// photo never push one out, and go by their own expiry alone.
  @Test(arguments: [3, 201])
  func failureMarkersNeverPushAPhotoOut(photos: Int) async throws {
    let db = try await TestDatabase.make()
    var images: [UUID] = []
    for index in 0..<photos {
      images.append(
        try await store(db, secondsLeft: 3600, createdAgo: Double(1000 + photos - index)))
    }
    try await db.pool.query(
      """
      INSERT INTO notification_images (image_id, event_id, state, byte_size, failure_reason,
                                       expires_at)
      SELECT gen_random_uuid(), gen_random_uuid(), 'failed', 0, 'asleep', now() + interval '1 hour'
      FROM generate_series(1, 300)
      """)
    let removal = try await db.pool.withTransaction { tx in
      try ImageStore(limits: limits).enforceRetention(tx)
    }
    #expect(removal.pruned == max(0, photos - 200))
    #expect(
      try await db.count("SELECT count(*) AS n FROM notification_images WHERE state = 'captured'")
        == min(photos, 200))
    #expect(
      try await db.count("SELECT count(*) AS n FROM notification_images WHERE state = 'failed'")
        == 300)
    #expect(try await exists(db, images.last!))
    #expect(try await exists(db, images.first!) == (photos <= 200))
  }

  @Test func eventsOlderThanTheAgeGoInBatchesAndYoungerOnesStay() async throws {
    let db = try await TestDatabase.make()
    try await insertEvents(db, count: 1234, ageSeconds: 31 * 86_400)
    try await insertEvents(db, count: 10, ageSeconds: 29 * 86_400)
    let retention = EventRetention(pool: db.pool, maximumAgeSeconds: 30 * 86_400, batchSize: 500)
    var batches: [Int] = []
    while true {
      let removed = try await retention.pruneBatch()
      batches.append(removed)
      if removed < 500 { break }
    }
    #expect(batches == [500, 500, 234])
    #expect(try await db.count("SELECT count(*) AS n FROM events") == 10)
  }

  @Test func aSavedReaderCursorHoldsRetentionBack() async throws {
    let db = try await TestDatabase.make()
    try await insertEvents(db, count: 100, ageSeconds: 40 * 86_400)
    let log = EventLog()
    // Other tests' open transactions can hold the tail back for a moment.
    var page = try await log.tail(after: .start, limit: 40, pool: db.pool)
    try await eventually("the tail to reach the inserted events") {
      page = try await log.tail(after: .start, limit: 40, pool: db.pool)
      return page.events.count == 40
    }
    try await log.save(page.cursor, reader: "audit-export", pool: db.pool)
    let retention = EventRetention(pool: db.pool, maximumAgeSeconds: 30 * 86_400, batchSize: 1000)
    #expect(try await retention.pruneBatch() == 39)
    #expect(try await log.cursor(of: "audit-export", pool: db.pool) == page.cursor)
    #expect(try await db.count("SELECT count(*) AS n FROM events") == 61)
  }

  /// A transaction that commits late has a low position but a high transaction id: a
  /// reader that has passed its position has not read it yet.
  @Test func aLateCommitBehindTheCursorsPositionStays() async throws {
    let db = try await TestDatabase.make()
    try await db.pool.query(
      """
      INSERT INTO events (position, tx_id, type, correlation_id, data, recorded_at) VALUES
        (10, '1000'::xid8, 'alarm.received', gen_random_uuid(), '{}', now() - interval '40 days'),
        (5, '2000'::xid8, 'alarm.received', gen_random_uuid(), '{}', now() - interval '40 days'),
        (20, '1500'::xid8, 'alarm.received', gen_random_uuid(), '{}', now() - interval '40 days')
      """)
    // The reader has read (1000, 10) and (1500, 20); (2000, 5) committed after it passed.
    try await EventLog().save(
      EventCursor(transactionID: "1500", position: 20), reader: "audit-export", pool: db.pool)
    let retention = EventRetention(pool: db.pool, maximumAgeSeconds: 30 * 86_400, batchSize: 100)
    #expect(try await retention.pruneBatch() == 1)
    let left = try await db.pool.query("SELECT position FROM events ORDER BY position")
    #expect(try left.map { try $0.int("position") } == [5, 20])
  }
}

func insertEvents(_ db: TestDatabase, count: Int, ageSeconds: Int) async throws {
  try await db.pool.query(
    """
    INSERT INTO events (type, correlation_id, data, recorded_at)
    SELECT 'alarm.received', gen_random_uuid(), '{}'::jsonb,
           now() - make_interval(secs => \(ageSeconds))
    FROM generate_series(1, \(count))
    """)
}
