import Events
import Foundation
import Infrastructure
import TestSupport

/// The three floors on a quiet machine, back to back and spaced out. The pipeline's quiet
/// floors are taken back to back, one request straight after the other; an alarm at 10 or
/// 100 a second meets servers and cores that have been idle since the last one. This
/// shows what the spacing alone costs, with no load beside it.
struct FloorPacingBenchmark {
  let nats: NATSClient
  let count: Int
  /// Requests per second for each spaced run; nil is back to back.
  let paces: [Int?]

  func run() async throws -> String {
    let db = try await TestDatabase.make()
    let rig = try await PipelineRig(db: db, cameraLatency: "500")
    defer { rig.stop() }
    var table = TextTable("floor", "pace", "n", "median", "p90", "p99", "max")
    for pace in paces {
      let every = pace.map { Duration.seconds(1) / $0 }
      let name = pace.map { "\($0)/s" } ?? "back to back"
      var floors = FloorSamples()
      floors.postgres = try await Floors.postgresInsertCommit(
        pool: db.pool, count: count, every: every)
      floors.nats = try await Floors.natsRoundTrip(
        nats: nats, subject: rig.subjects.prefix + "pacing", count: count, every: every)
      floors.sandbox = try rig.sandboxAnswerTimes(count: count, perSecond: pace)
      for (floor, samples) in [
        ("PostgreSQL insert+commit", floors.postgres), ("NATS round trip", floors.nats),
        ("sandbox answer", floors.sandbox),
      ] {
        table.add(
          floor, name, "\(samples.count)", ms(samples.median), ms(samples.percentile(90)),
          ms(samples.p99), ms(samples.maximum))
      }
      table.add("sum", name, "", ms(floors.medianSum), "", ms(floors.p99Sum), "")
    }
    try await db.pool.query("DROP SCHEMA \(identifier: db.schema) CASCADE")
    await db.pool.close()
    return table.render()
  }
}
