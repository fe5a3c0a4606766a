import NotificationServiceKit
import Testing

@Suite("When to ask: once a second, at most 14 s, each request at most 6 s")
struct PlanTests {
  typealias Step = PushImage.Plan.Step

  @Test(
    "The next step, at the window's edge and elsewhere",
    arguments: [
      // (now, previous start) -> step
      (0, nil, Step.ask(at: 0, timeout: 6)),
      (0.05, 0, .ask(at: 1, timeout: 6)),
      (1, 0, .ask(at: 1, timeout: 6)),
      (6, 0, .ask(at: 6, timeout: 6)),  // after a request that timed out
      (7.9, 7, .ask(at: 8, timeout: 6)),  // the last one with a full 6 s
      (8.05, 8, .ask(at: 9, timeout: 5)),
      (8.5, 7, .ask(at: 8.5, timeout: 5.5)),
      (12, 6, .ask(at: 12, timeout: 2)),
      (12.05, 12, .ask(at: 13, timeout: 1)),  // the last one on schedule
      (13, 12, .ask(at: 13, timeout: 1)),
      (13.25, 12.25, .ask(at: 13.25, timeout: 0.75)),  // a real clock running late
      (13.5, 12, .ask(at: 13.5, timeout: 0.5)),  // the last moment a request may start
      (13.25, 12.5, .ask(at: 13.5, timeout: 0.5)),
      (13.5001, 12, .stop),
      (13.05, 13, .stop),  // the next slot would be 14 s
      (13.9, 12.9, .stop),
      (14, 13, .stop),
      (14, nil, .stop),
      (20, 13, .stop),
    ] as [(Double, Double?, Step)])
  func next(now: Double, previousStart: Double?, expected: Step) {
    #expect(PushImage.Plan.standard.next(elapsed: now, previousStart: previousStart) == expected)
  }

  @Test(
    "Every planned request ends inside the window",
    arguments: Array(stride(from: 0, to: 15, by: 0.25)))
  func endsInsideWindow(now: Double) {
    let plan = PushImage.Plan.standard
    for previous in [nil, now - 1, now - 0.5, now - 6] as [Double?] {
      guard case .ask(let at, let timeout) = plan.next(elapsed: now, previousStart: previous)
      else { continue }
      #expect(at >= now)
      #expect(at + timeout <= plan.window)
      #expect(timeout <= plan.requestTimeout)
      #expect(timeout >= plan.minimumTimeout)
    }
  }

  @Test("The standard plan is the contract's")
  func standard() {
    let plan = PushImage.Plan.standard
    #expect(plan.window == 14)
    #expect(plan.interval == 1)
    #expect(plan.requestTimeout == 6)
  }
}
