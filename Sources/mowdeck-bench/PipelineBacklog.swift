import Events
import Foundation
import Infrastructure
import TestSupport

/// What the pipeline has not finished at one moment: alarms the fan-out has not
/// acknowledged, photo reservations not yet ended and deliveries not yet sent; with the
/// database's commit count, read in the same round trip.
struct PipelineBacklog {
  /// The fan-out consumer's messages not yet delivered plus delivered but not acknowledged.
  var alarms = 0
  /// Pending reservations a PhotoWorker holds a live lease on: requests out at the camera,
  /// as many as its latency times the photo rate at any load, so they are not a sign of
  /// falling behind.
  var photosAtCamera = 0
  /// Pending reservations no PhotoWorker holds: waiting for one.
  var photosWaiting = 0
  var deliveries = 0
  /// `pg_stat_database.xact_commit` of the benchmark's database. PostgreSQL publishes a
  /// backend's counts when its transaction ends, at most once a second (ten when idle), so
  /// a difference over a step is right to about a second's commits.
  var commits = 0

  /// Everything unfinished, the camera's requests included.
  var total: Int { alarms + photosAtCamera + photosWaiting + deliveries }
  /// Work queued for the pipeline itself: what grows when it cannot keep up.
  var waiting: Int { alarms + photosWaiting + deliveries }
  /// The photos and deliveries in PostgreSQL, the figure the single-rate run waits on.
  var stored: Int { photosAtCamera + photosWaiting + deliveries }

  /// The database's part only (no NATS request): the single-rate run polls it.
  static func read(db: TestDatabase) async throws -> PipelineBacklog {
    let row = try await db.pool.query(
      """
      SELECT (SELECT count(*) FROM photo_reservations
                WHERE state = 'pending' AND lease_expires_at >= now()) AS at_camera,
             (SELECT count(*) FROM photo_reservations
                WHERE state = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at < now()))
               AS photos_waiting,
             (SELECT count(*) FROM deliveries WHERE state = 'queued') AS deliveries,
             (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())
               AS commits
      """)[0]
    var backlog = PipelineBacklog()
    backlog.photosAtCamera = try row.int("at_camera")
    backlog.photosWaiting = try row.int("photos_waiting")
    backlog.deliveries = try row.int("deliveries")
    backlog.commits = try row.int("commits")
    return backlog
  }

  /// The database's part and the fan-out consumer's.
  static func read(db: TestDatabase, nats: NATSClient, subjects: Subjects) async throws
    -> PipelineBacklog
  {
    var backlog = try await read(db: db)
    if let consumer = try await JetStream(client: nats).consumerBacklog(
      stream: subjects.alarmsStream, durable: subjects.fanoutConsumer)
    {
      backlog.alarms = Int(consumer.pending) + Int(consumer.ackPending)
    }
    return backlog
  }
}
