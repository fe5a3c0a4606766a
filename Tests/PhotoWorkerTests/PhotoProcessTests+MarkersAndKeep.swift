import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Issue 20, item 9 (docs/interfaces.md#tables): `IMAGE_KEEP` counts photos with bytes only, so a
/// storm of failure markers never pushes a real photo out; markers go by their own expiry.
extension PhotoProcessTests {
  @Test func aStormOfFailureMarkersNeverPushesAPhotoOut() async throws {
    let stack = try await Stack(settings: ["MOWDECK_NOTIFICATIONS_IMAGE_KEEP": "3"])
    let simulator = try await stack.simulator(
      latencyMs: 0, behaviours: ["m-photo": "photo", "m-asleep": "asleep"])
    defer { simulator.stop() }
    let worker = try await stack.photoWorker()
    defer { worker.stop() }

    let photos = try await stack.reserve(mower: "m-photo", count: 3)
    try await eventually(timeout: .seconds(10), "three photos") { try await stack.pending() == 0 }
    try await stack.reserve(mower: "m-asleep", count: 20)
    try await eventually(timeout: .seconds(10), "twenty failures") {
      try await stack.pending() == 0
    }
    let stored = try await stack.db.pool.query(
      "SELECT image_id FROM notification_images WHERE state = 'captured'")
    #expect(Set(try stored.map { try $0.uuid("image_id") }) == Set(photos))
    #expect(
      try await stack.db.count(
        "SELECT count(*) AS n FROM notification_images WHERE state = 'failed'")
        == 20)
    #expect(
      try await stack.db.count("SELECT count(*) AS n FROM events WHERE type = 'image.pruned'") == 0)

    // A fourth photo still pushes the oldest photo out, and no marker.
    try await Task.sleep(for: .milliseconds(20))
    let fourth = try await stack.reserve(mower: "m-photo")[0]
    try await eventually(timeout: .seconds(10), "the fourth photo") {
      try await stack.pending() == 0
    }
    let kept = try await stack.db.pool.query(
      "SELECT image_id FROM notification_images WHERE state = 'captured'"
    ).map { try $0.uuid("image_id") }
    #expect(kept.count == 3)
    #expect(kept.contains(fourth))
    #expect(
      try await stack.db.count(
        "SELECT count(*) AS n FROM notification_images WHERE state = 'failed'")
        == 20)
    #expect(
      try await stack.db.count(
        "SELECT count(*) AS n FROM events WHERE type = 'image.pruned' AND data->>'state' = 'captured'"
      ) == 1)
  }
}
