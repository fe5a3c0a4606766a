import Foundation
import Infrastructure
import Testing

@Suite struct BackoffTests {
  @Test func delaysGrowWithJitterUpToTheMaximum() {
    var backoff = Backoff(initial: 0.1, maximum: 2)
    let ceilings = [0.1, 0.2, 0.4, 0.8, 1.6, 2, 2, 2]
    for ceiling in ceilings {
      let delay = backoff.next()
      #expect(delay >= ceiling / 2 && delay <= ceiling, "delay \(delay), ceiling \(ceiling)")
    }
    #expect(backoff.attempt == ceilings.count)
    backoff.reset()
    #expect(backoff.attempt == 0)
    #expect(backoff.next() <= 0.1)
  }

  @Test func manyAttemptsDoNotOverflow() {
    var backoff = Backoff(initial: 0.1, maximum: 5)
    for _ in 0..<200 { _ = backoff.next() }
    let delay = backoff.next()
    #expect(delay >= 2.5 && delay <= 5)
  }
}

@Suite struct ClockTests {
  @Test func manualClockMovesOnlyWhenTold() {
    let start = Date(timeIntervalSince1970: 1_795_947_300)
    let clock = ManualClock(start)
    #expect(clock.now() == start)
    clock.advance(by: 90)
    #expect(clock.now() == start.addingTimeInterval(90))
    clock.set(start)
    #expect(clock.now() == start)
  }
}

@Suite struct JSONTests {
  @Test func encodingSortsKeysAndKeepsSlashes() {
    #expect(JSON.encode(["b": 1, "a": "x/y", "c": true]) == #"{"a":"x/y","b":1,"c":true}"#)
  }

  @Test(arguments: ["", "[]", "not json", "{", "42"])
  func objectIsNilForAnythingButAnObject(text: String) {
    #expect(JSON.object(from: Array(text.utf8)) == nil)
  }
}
