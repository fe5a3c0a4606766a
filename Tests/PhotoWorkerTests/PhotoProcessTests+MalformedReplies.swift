import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Issue 20, item 6 (docs/interfaces.md#camera-request-and-replies): whatever a camera answers, its
/// capture ends within the timeout plus a few seconds, what a failure records of the reply is clean
/// and short, and the worker goes on capturing other mowers' photos.
extension PhotoProcessTests {
  @Test func everyMalformedReplyEndsItsCaptureAndTheWorkerGoesOn() async throws {
    let timeout = 3
    let stack = try await Stack(photoTimeout: timeout)
    // The simulator's behaviours, and how each capture must end.
    let cases: [String: (behaviour: String, outcome: String)] = [
      "m-nul": ("nul_error", "gateway_error"), "m-long": ("long_error", "gateway_error"),
      "m-utf8": ("invalid_utf8_error", "gateway_error"), "m-array": ("json_array", "gateway_error"),
      "m-number": ("numeric_error", "gateway_error"), "m-labelled": ("json_as_jpeg", "not_jpeg"),
      // A frame, then an error to the same request: the first answer counts, once.
      "m-twice": ("twice", "captured"),
    ]
    let simulator = try await stack.simulator(
      latencyMs: 20, behaviours: cases.mapValues(\.behaviour).merging(["m-ok": "photo"]) { $1 })
    defer { simulator.stop() }
    let worker = try await stack.photoWorker()
    defer { worker.stop() }

    var images: [UUID: String] = [:]
    for mower in cases.keys { images[try await stack.reserve(mower: mower)[0]] = mower }
    try await eventually(timeout: .seconds(timeout + 5), "every capture to end") {
      try await stack.pending() == 0
    }
    let outcomes = try await stack.outcomes()
    for (image, mower) in images {
      #expect(outcomes[image] == cases[mower]?.outcome, "\(mower)")
    }
    #expect(
      try await stack.db.count(
        """
        SELECT count(*) AS n FROM photo_reservations
        WHERE finished_at > created_at + make_interval(secs => \(timeout + 3))
        """) == 0)

    // Each failure recorded once, its marker written, its detail clean and short.
    let failed = cases.values.filter { $0.outcome != "captured" }.count
    #expect(
      try await stack.db.count(
        "SELECT count(*) AS n FROM notification_images WHERE state = 'failed'")
        == failed)
    var details: [String: String] = [:]
    for row in try await stack.db.pool.query(
      "SELECT (data->>'image_id')::uuid AS image, data->>'detail' AS detail FROM events WHERE type = 'photo.failed'"
    ) {
      let mower = try #require(images[try row.uuid("image")])
      let detail = try #require(try row.optionalString("detail"), "\(mower)")
      #expect(detail.unicodeScalars.count <= 200, "\(mower)")
      #expect(!detail.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(mower)")
      details[mower] = detail
    }
    #expect(details.count == failed)
    #expect(details["m-nul"] == "xy")
    #expect(details["m-long"]?.unicodeScalars.count == 200)
    #expect(details["m-utf8"] == "caf\u{FFFD}(\u{FFFD}\u{FFFD}!")
    #expect(details["m-array"] == #"error reply of the wrong shape: ["asleep"]"#)
    #expect(details["m-number"] == #"error reply of the wrong shape: {"error": 5}"#)
    #expect(details["m-labelled"] == "18 bytes, content type image/jpeg")

    // Nothing was retried, and the worker still captures another mower's photo.
    #expect(!worker.log.contains("retrying"), "\(worker.log)")
    let valid = try await stack.reserve(mower: "m-ok")[0]
    try await eventually(timeout: .seconds(10), "a valid photo captured") {
      try await stack.outcomes()[valid] == "captured"
    }
    #expect(worker.isRunning)
  }
}
