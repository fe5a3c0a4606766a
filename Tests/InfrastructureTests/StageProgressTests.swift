import Infrastructure
import Testing

/// The stall rule behind `/healthz`: work waiting longer than the limit with nothing
/// finished; an idle stage is never stalled, and finishing anything resets the clock.
@Suite struct StageProgressTests {
  func progress(limit: Duration = .seconds(5)) -> StageProgress {
    StageProgress(stage: "test", stallLimit: limit, metrics: Metrics())
  }

  @Test func anIdleStageIsNeverStalled() {
    let stage = progress()
    #expect(stage.stalled(now: .now + .seconds(3600)) == nil)
    stage.waiting(0, oldestAgeSeconds: 0)
    #expect(stage.stalled(now: .now + .seconds(3600)) == nil)
  }

  @Test func workWaitingPastTheLimitWithNothingFinishedIsAStall() throws {
    let stage = progress()
    stage.waiting(3, oldestAgeSeconds: 1)
    #expect(stage.stalled(now: .now + .seconds(4)) == nil)
    let stalled = try #require(stage.stalled(now: .now + .seconds(6)))
    #expect(stalled > .seconds(5))
  }

  @Test func finishingAUnitResetsTheClock() {
    let stage = progress()
    stage.waiting(3, oldestAgeSeconds: 1)
    stage.progressed()
    #expect(stage.stalled(now: .now + .seconds(4)) == nil)
    #expect(stage.stalled(now: .now + .seconds(6)) != nil)
  }

  @Test func theGaugesShowTheCountAndTheOldestAge() {
    let metrics = Metrics()
    let stage = StageProgress(stage: "photo", stallLimit: .seconds(5), metrics: metrics)
    stage.waiting(7, oldestAgeSeconds: 12.5)
    let text = metrics.render()
    #expect(text.contains("mowdeck_photo_waiting 7"))
    #expect(text.contains("mowdeck_photo_oldest_waiting_seconds 12.5"))
    stage.waiting(0, oldestAgeSeconds: 99)
    #expect(metrics.render().contains("mowdeck_photo_oldest_waiting_seconds 0"))
  }
}
