import Infrastructure
import Testing

/// `mowdeck_<stage>_stalled`: what `/healthz` says of the stage, for Prometheus, which
/// reads `/metrics` only; set at each measurement of the backlog.
@Suite struct StageStalledGaugeTests {
  func stalledGauge(_ metrics: Metrics) -> String? {
    metrics.render().split(separator: "\n").first { $0.hasPrefix("mowdeck_photo_stalled ") }
      .map { String($0.split(separator: " ")[1]) }
  }

  @Test func theGaugeFollowsTheStallRule() async throws {
    let metrics = Metrics()
    let stage = StageProgress(stage: "photo", stallLimit: .milliseconds(50), metrics: metrics)
    #expect(stalledGauge(metrics) == "0.0")
    #expect(metrics.render().contains("# HELP mowdeck_photo_stalled "))
    stage.waiting(2, oldestAgeSeconds: 1)
    #expect(stalledGauge(metrics) == "0.0")
    try await Task.sleep(for: .milliseconds(120))
    stage.waiting(2, oldestAgeSeconds: 1.2)
    #expect(stage.stalled() != nil)
    #expect(stalledGauge(metrics) == "1.0")
    stage.progressed()
    stage.waiting(1, oldestAgeSeconds: 0.1)
    #expect(stalledGauge(metrics) == "0.0")
    // Nothing waiting is never a stall, however long since anything finished.
    try await Task.sleep(for: .milliseconds(120))
    stage.waiting(0, oldestAgeSeconds: 0)
    #expect(stalledGauge(metrics) == "0.0")
  }
}
