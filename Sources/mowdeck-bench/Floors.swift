import Events
import Foundation
import Infrastructure

/// The floors every figure is compared with, measured in the same run on the same servers.
enum Floors {
  /// A bare `INSERT` and `COMMIT` of one row (a short text, or `payload` as bytea), one
  /// transaction at a time; with `every`, one per period (a probe beside a load).
  static func postgresInsertCommit(
    pool: DatabasePool, payload: [UInt8]? = nil, count: Int = 500, every: Duration? = nil
  ) async throws -> Samples {
    try await pool.query(
      "CREATE TABLE IF NOT EXISTS bench_floor (id bigserial, note text, bytes bytea)")
    // Stored like notification_images.jpeg: out of line, uncompressed.
    try await pool.query("ALTER TABLE bench_floor ALTER COLUMN bytes SET STORAGE EXTERNAL")
    var samples = Samples()
    let pacing = Pacing(every: every)
    for index in 0..<count {
      try await pacing.wait(for: index)
      let start = ContinuousClock.now
      _ = try await pool.withTransaction { tx in
        try tx.query(
          "INSERT INTO bench_floor (note, bytes) VALUES (\(String(index)), \(payload.map(Bytes.init)))"
        )
      }
      samples.add(ContinuousClock.now - start)
    }
    return samples
  }

  /// A NATS request to a responder in this process and its reply.
  static func natsRoundTrip(
    nats: NATSClient, subject: String, count: Int = 1000, every: Duration? = nil
  ) async throws -> Samples {
    let responder = try nats.subscribe(subject)
    let echo = Task {
      for await message in responder {
        if let reply = message.reply { try? nats.publish(reply, message.data) }
      }
    }
    defer {
      responder.unsubscribe()
      echo.cancel()
    }
    try await nats.flush()
    var samples = Samples()
    let pacing = Pacing(every: every)
    for index in 0..<count {
      try await pacing.wait(for: index)
      let start = ContinuousClock.now
      _ = try await nats.request(subject, Array("ping".utf8), timeout: .seconds(5))
      samples.add(ContinuousClock.now - start)
    }
    return samples
  }
}

/// Spaces a probe's samples `every` apart from its start, whatever each one took; no
/// spacing without `every`.
private struct Pacing {
  let every: Duration?
  let start = ContinuousClock.now

  func wait(for index: Int) async throws {
    guard let every else { return }
    try await Task.sleep(until: start + every * index, clock: .continuous)
  }
}
