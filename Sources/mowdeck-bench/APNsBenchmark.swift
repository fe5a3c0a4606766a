import Events
import Foundation
import Infrastructure
import TestSupport

/// Issue 4's benchmark: pushes per second over one HTTP/2 connection to the sandbox, and the
/// latency from an alarm's publish to its push arriving at the sandbox at a fixed rate while
/// the camera takes `cameraMs` per photo, with the floors measured in the same run.
struct APNsBenchmark {
  let db: TestDatabase
  let nats: NATSClient
  let pushes: Int
  let rate: Int
  let seconds: Int
  let cameraMs: Int

  func run() async throws -> String {
    let fanout = BenchLoad(db: db)
    try await fanout.seedFleet()
    let rig = try await PipelineRig(db: db, cameraLatency: "\(cameraMs)")
    defer { rig.stop() }
    let pgFloor = try await Floors.postgresInsertCommit(pool: db.pool, count: 300)
    let natsFloor = try await Floors.natsRoundTrip(
      nats: nats, subject: rig.subjects.prefix + "floor", count: 500)
    let sandboxFloor = try rig.sandboxAnswerTimes(count: 200)
    var table = TextTable("run", "n", "median", "p99", "max", "rate", "peak RSS")
    table.add(
      "floor: PostgreSQL insert+commit", "\(pgFloor.count)", ms(pgFloor.median), ms(pgFloor.p99),
      ms(pgFloor.maximum), "", "")
    table.add(
      "floor: NATS round trip", "\(natsFloor.count)", ms(natsFloor.median), ms(natsFloor.p99),
      ms(natsFloor.maximum), "", "")
    table.add(
      "floor: sandbox answer (curl, one connection)", "\(sandboxFloor.count)",
      ms(sandboxFloor.median), ms(sandboxFloor.p99), ms(sandboxFloor.maximum), "", "")

    // Pushes per second: deliveries queued directly, drained by one APNsWorker.
    try await rig.startWorkers(["APNsWorker"])
    try await rig.queueDeliveries(count: pushes)
    let drainStart = ContinuousClock.now
    try await eventually(timeout: .seconds(300), "the deliveries to drain") {
      try await db.count("SELECT count(*) AS n FROM deliveries WHERE state = 'queued'") == 0
    }
    let drain = (ContinuousClock.now - drainStart).seconds
    table.add(
      "\(pushes) pushes, 1 APNsWorker, one connection", "\(pushes)", "", "", "",
      String(format: "%.0f pushes/s", Double(pushes) / drain), rig.rss("APNsWorker"))

    // Alarm to push at a fixed rate with the whole pipeline running and a slow camera.
    try await rig.startWorkers(["FanoutWorker", "PhotoWorker"])
    let publisher = try await AlarmPublisher(nats: nats, subjects: rig.subjects, pool: db.pool)
    _ = try await fanout.drive(publisher, rig.subjects, count: 100, rate: 200)
    // One in three a theft alarm, with a photo.
    let sent = try await rig.publishAtRate(publisher, rate: rate, count: rate * seconds) {
      index in
      let mower = "bm-\(index % BenchLoad.mowers)"
      let kind = index % 3 == 0 ? "mower_lifted" : "battery_low"
      let alarm = AlarmMessage(mowerID: mower, kind: kind, occurredAt: Date())
      return (alarm.eventID.uuidString.lowercased(), mower, alarm.encoded)
    }.requireAllAcknowledged()
    try await Task.sleep(for: .seconds(2))
    let latencies = try await rig.alarmToPush(sent)
    table.add(
      "alarm -> push at sandbox, camera \(cameraMs) ms", "\(latencies.count)", ms(latencies.median),
      ms(latencies.p99), ms(latencies.maximum), "\(rate) alarms/s",
      rig.rss("FanoutWorker") + " / " + rig.rss("APNsWorker"))
    let floorSum = natsFloor.median + pgFloor.median + sandboxFloor.median
    table.add(
      "p99 / floor sum (median floors)", "", "", String(format: "%.1fx", latencies.p99 / floorSum),
      "", "", "")
    return table.render()
  }
}
