import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Issue 20, item 9: photo shedding (ADR 0019) only with the contract's two conditions
/// (docs/interfaces.md#camera-request-and-replies): never in a burst that fits the budget, never
/// for requests taken over after a crash. The store is stalled so that every photo is held at once.
extension PhotoProcessTests {
  @Test func aBurstThatFitsTheBudgetShedsNothingWhateverErrorRepliesComeAlongside() async throws {
    let photo = 400_000
    let stack = try await Stack(settings: ["MOWDECK_PHOTO_MAX_HELD_BYTES": String(2 * photo)])
    var behaviours = ["m-photo-1": "photo:\(photo)", "m-photo-2": "photo:\(photo)"]
    for index in 1...6 { behaviours["m-asleep-\(index)"] = "asleep" }
    // One latency for all: the answers come in one burst.
    let simulator = try await stack.simulator(latencyMs: 1000, behaviours: behaviours)
    defer { simulator.stop() }
    let worker = try await stack.photoWorker()
    defer { worker.stop() }
    let port = try await listeningPort(of: worker)

    let stall = try await stack.stallTheStore()
    defer { Task { try? await stall.release() } }
    for mower in behaviours.keys { try await stack.reserve(mower: mower) }
    try await eventually(timeout: .seconds(10), "every answer judged") {
      try stack.metric("mowdeck_photo_capture_seconds_count", port: port) == 8
    }
    // Both photos held together, exactly the budget; the error replies already let go.
    #expect(try stack.heldBytes(port: port) == 2 * photo)

    try await stall.release()
    try await eventually(timeout: .seconds(20), "every reservation ended") {
      try await stack.pending() == 0
    }
    let outcomes = Array(try await stack.outcomes().values)
    #expect(outcomes.filter { $0 == "captured" }.count == 2)
    #expect(outcomes.filter { $0 == "asleep" }.count == 6)
    #expect(!worker.log.contains("photo shed"), "\(worker.log)")
    try await eventually(timeout: .seconds(10), "nothing held") {
      try stack.heldBytes(port: port) == 0
    }
  }

  @Test func requestsTakenOverAfterACrashAreNeverShed() async throws {
    let photo = 400_000
    let count = 6
    // Room for one photo of the largest size; the takeover brings six times as many bytes.
    let stack = try await Stack(settings: ["MOWDECK_PHOTO_MAX_HELD_BYTES": "524288"])
    let simulator = try await stack.simulator(
      latencyMs: 2500,
      behaviours: Dictionary(
        uniqueKeysWithValues: (1...count).map { ("m-\($0)", "photo:\(photo)") })
    )
    defer { simulator.stop() }
    let first = try await stack.photoWorker()
    let stall = try await stack.stallTheStore()
    defer { Task { try? await stall.release() } }
    for index in 1...count { try await stack.reserve(mower: "m-\(index)") }
    try await eventually(timeout: .seconds(10), "requests in flight") {
      try await stack.db.count("SELECT count(*) AS n FROM events WHERE type = 'photo.requested'")
        == count
    }
    first.kill()

    let second = try await stack.photoWorker()
    defer { second.stop() }
    let port = try await listeningPort(of: second)
    try await eventually(timeout: .seconds(20), "every photo taken over and held") {
      try stack.heldBytes(port: port) == count * photo
    }
    #expect(
      try await stack.db.count(
        "SELECT count(*) AS n FROM events WHERE type = 'photo.requested' AND data->>'attempt' = '2'"
      ) == count)

    try await stall.release()
    try await eventually(timeout: .seconds(20), "every reservation ended") {
      try await stack.pending() == 0
    }
    #expect(Set(try await stack.outcomes().values) == ["captured"])
    #expect(!second.log.contains("photo shed"), "\(second.log)")
    try await eventually(timeout: .seconds(10), "nothing held") {
      try stack.heldBytes(port: port) == 0
    }
  }
}
