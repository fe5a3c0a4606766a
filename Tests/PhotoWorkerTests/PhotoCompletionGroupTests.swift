import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import PhotoWorker

/// Issue 24, item 2: photo outcomes written several to a transaction (`PhotoCompleter`,
/// ADR 0045) end each reservation exactly as alone, with one retention pass; a group that
/// PostgreSQL refuses writes nothing, and each outcome is then written on its own merits.
@Suite struct PhotoCompletionGroupTests {
  static let photo = Array(
    FileManager.default.contents(atPath: TestServers.repositoryPath("deploy/frames/small.jpg"))
      ?? Data())

  /// One pushed alarm with a reserved photo per mower, all claimed, in mower order.
  static func claims(_ mowers: [String], in db: TestDatabase, store: PhotoStore) async throws
    -> [PhotoClaim]
  {
    for mower in mowers {
      try await db.pool.query(
        """
        WITH alarm AS (
          INSERT INTO alarms (event_id, mower_id, kind, alarm_class, occurred_at, decided_on,
                              decision, photo, recipients)
          VALUES (gen_random_uuid(), \(mower), 'mower_lifted', 'theft', now(), now(), 'pushed',
                  'reserved', 1)
          RETURNING event_id
        )
        INSERT INTO photo_reservations (image_id, event_id, mower_id, reserved_on)
        SELECT gen_random_uuid(), event_id, \(mower), now() FROM alarm
        """)
    }
    let claims = try await store.claim(limit: mowers.count)
    #expect(claims.count == mowers.count)
    return claims.sorted { $0.mowerID < $1.mowerID }
  }

  static func store(_ db: TestDatabase, keep: Int = 100) -> PhotoStore {
    PhotoStore(
      pool: db.pool,
      images: ImageStore(
        limits: ImageLimits(retentionSeconds: 3600, failedRetentionSeconds: 600, keep: keep)),
      photoTimeoutSeconds: 20)
  }

  @Test func aGroupEndsEachReservationAsAloneInOneTransactionWithOneRetentionPass()
    async throws
  {
    let db = try await TestDatabase.make()
    let store = Self.store(db, keep: 1)
    let claims = try await Self.claims(["m-1", "m-2", "m-3", "m-4"], in: db, store: store)
    // m-4's reservation is ended first, alone: in the group it is stale.
    #expect(
      try await store.complete(claims[3], result: .failed(.asleep, detail: nil), latencySeconds: 1)
        == .stored(followUps: 0))
    var group = PhotoCompletions()
    for (claim, result) in zip(
      claims,
      [
        PhotoResult.captured(Self.photo), .failed(.timeout, detail: "no answer"),
        .captured(Self.photo), .captured(Self.photo),
      ])
    {
      let added = group.add(PhotoCompletion(claim: claim, result: result, latencySeconds: 0.5))
      #expect(added)
    }
    #expect(
      try await store.complete(group) == [
        .stored(followUps: 0), .stored(followUps: 0), .stored(followUps: 0), .stale,
      ])

    let rows = try await db.pool.query(
      """
      SELECT r.mower_id, r.state, i.state AS image, i.xmin::text AS tx
      FROM photo_reservations r LEFT JOIN notification_images i USING (image_id)
      ORDER BY r.mower_id
      """)
    #expect(
      try rows.map { try $0.string("state") } == ["captured", "failed", "captured", "failed"])
    // The group's rows come from one transaction, and its one retention pass, after every
    // row is written, keeps one of its two photos (one photo kept).
    let images = try rows.map { try $0.optionalString("image") }
    #expect(Array(images[1...]) == ["failed", images[2], "failed"])
    #expect(Set([images[0], images[2]]) == [nil, "captured"])
    #expect(Set(try rows.dropLast().compactMap { try $0.optionalString("tx") }).count == 1)
    let events = try await db.pool.query(
      "SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY type"
    ).reduce(into: [String: Int]()) { $0[try $1.string("type")] = try $1.int("n") }
    #expect(events["photo.captured"] == 2)
    #expect(events["photo.failed"] == 2)
    #expect(events["image.pruned"] == 1)
  }

  /// With one connection, outcomes that arrive while the first one's transaction waits for
  /// the image table's lock go together. With `failing`, PostgreSQL refuses one of them:
  /// the group writes nothing, each gets `GroupCommitFailed`, and alone the other three are
  /// stored and the refused one fails by itself.
  @Test(arguments: [false, true])
  func outcomesWaitingForAConnectionGoInOneGroup(failing: Bool) async throws {
    let db = try await TestDatabase.make()
    let store = Self.store(db)
    let mowers = ["m-1", "m-2", "m-3", "m-4", "m-5"]
    let claims = try await Self.claims(mowers, in: db, store: store)
    if failing {
      try await db.pool.query(
        "ALTER TABLE notification_images ADD CONSTRAINT test_refuses_4321 CHECK (byte_size <> 4321)"
      )
    }
    let metrics = Metrics(component: "PhotoWorker", families: PipelineMetrics.photo)
    let completer = PhotoCompleter(store: store, metrics: metrics, maxConcurrent: 1)
    let holder = try await PostgresConnection.connect(url: db.url, applicationName: "holder")
    defer { holder.close() }
    try await holder.execute(
      "BEGIN; SELECT pg_advisory_xact_lock(hashtext('mowdeck.notification_images'))")

    func completion(_ index: Int) -> PhotoCompletion {
      // m-4's photo is the one the constraint refuses.
      let bytes = index == 3 ? [UInt8](repeating: 0xFF, count: 4321) : Self.photo
      return PhotoCompletion(claim: claims[index], result: .captured(bytes), latencySeconds: 0.2)
    }
    let first = Task { try await completer.commit(completion(0)) }
    let holderPID = try await holder.backendPID()
    try await eventually(timeout: .seconds(10), "the first outcome waiting on the lock") {
      try await db.count(
        """
        SELECT count(*) AS n FROM pg_stat_activity
        WHERE pg_blocking_pids(pid) @> ARRAY[\(holderPID)::int]
        """) > 0
    }
    let queued = (1..<5).map { index in
      let item = completion(index)
      return Task { try await completer.commit(item) }
    }
    try await Task.sleep(for: .milliseconds(300))
    try await holder.execute("COMMIT")
    #expect(try await first.value == .stored(followUps: 0))

    var failed: [PhotoCompletion] = []
    for (index, task) in zip(1..<5, queued) {
      do {
        #expect(try await task.value == .stored(followUps: 0))
        #expect(!failing)
      } catch let error as GroupCommitFailed {
        #expect(failing)
        #expect(error.groupSize == 4)
        failed.append(completion(index))
      }
    }
    let rendered = metrics.render()
    #expect(rendered.contains("mowdeck_photo_store_group_photos_count 2"), "\(rendered)")
    #expect(
      rendered.contains("mowdeck_photo_store_group_photos_bucket{le=\"2.0\"} 1"), "\(rendered)")
    let stored: SQL = "SELECT count(*) AS n FROM notification_images"
    #expect(try await db.count(stored) == (failing ? 1 : 5))
    guard failing else { return }
    var refused = 0
    for item in failed {
      do {
        #expect(
          try await store.complete(item.claim, result: item.result, latencySeconds: 0.2)
            == .stored(followUps: 0))
      } catch let error as DatabaseError {
        #expect(error.sqlState == "23514")
        #expect(item.claim.mowerID == "m-4")
        refused += 1
      }
    }
    #expect(refused == 1)
    #expect(try await db.count(stored) == 4)
  }

  /// A lease renewal skips the rows an outcome's transaction holds instead of waiting for
  /// them: waiting, it held every other row's lock meanwhile, and groups of outcomes locking
  /// their rows in another order deadlocked with it, so hundreds of leases lapsed at once
  /// and their photos were asked for again (found by `scripts/bench.sh photo`'s flood).
  @Test func aRenewalSkipsRowsAnOutcomeHoldsAndRenewsTheRest() async throws {
    let db = try await TestDatabase.make()
    let store = Self.store(db)
    let claims = try await Self.claims(["m-1", "m-2", "m-3"], in: db, store: store)
    try await db.pool.query(
      "UPDATE photo_reservations SET lease_expires_at = now() + interval '1 second'")
    let holder = try await PostgresConnection.connect(url: db.url, applicationName: "holder")
    defer { holder.close() }
    try await holder.execute(
      "BEGIN; SELECT 1 FROM photo_reservations WHERE image_id = '\(claims[0].imageID)' FOR UPDATE")
    let renewal = Task { try await store.renew(claims.map(\.leaseToken)) }
    try await eventually(timeout: .seconds(5), "the renewal to finish, past the held row") {
      try await db.count(
        """
        SELECT count(*) AS n FROM photo_reservations
        WHERE lease_expires_at > now() + interval '2 seconds'
        """) == 2
    }
    try await renewal.value
    try await holder.execute("ROLLBACK")
    let renewed = try await db.pool.query(
      """
      SELECT mower_id FROM photo_reservations
      WHERE lease_expires_at > now() + interval '2 seconds' ORDER BY mower_id
      """
    ).map { try $0.string("mower_id") }
    #expect(renewed == ["m-2", "m-3"])
  }
}
