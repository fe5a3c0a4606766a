import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// The per-process limits over real HTTP (ADR 0008). The fixture's clock stands still, so
/// no bucket refills during a test unless the test moves the clock.
@Suite struct RateLimitTests {
  @Test func the41stRequestForOneNotificationIs429WithRetryAfter() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .pending)
      let other = try await fixture.seedAlarm(photo: .pending)
      let target = fixture.pushTarget(alarm.notificationID)
      for index in 1...40 {
        #expect(try await fixture.get(target).status == 404, "request \(index)")
      }
      let refused = try await fixture.get(target)
      #expect(refused.status == 429)
      // 40 a minute refill one every 1.5 s: the next one is allowed in 2 whole seconds.
      #expect(refused.headers["retry-after"] == "2")
      // Another notification has its own budget.
      #expect(try await fixture.get(fixture.pushTarget(other.notificationID)).status == 404)
      fixture.clock.advance(by: 1.6)
      #expect(try await fixture.get(target).status == 404)
      #expect(try await fixture.get(target).status == 429)
    }
  }

  @Test func theTotalBudgetIsSharedByAllNotifications() async throws {
    try await ServeFixture.with(["MOWDECK_NOTIFICATIONS_IMAGE_RATE_TOTAL": "30"]) { fixture in
      try await fixture.seedDirectory()
      var alarms: [ServeFixture.Seeded] = []
      for _ in 0..<4 { alarms.append(try await fixture.seedAlarm(photo: .pending)) }
      var statuses: [Int] = []
      for index in 0..<31 {
        statuses.append(
          try await fixture.get(fixture.pushTarget(alarms[index % 4].notificationID)).status)
      }
      #expect(statuses.prefix(30).allSatisfy { $0 == 404 })
      let refused = try await fixture.get(fixture.pushTarget(alarms[0].notificationID))
      #expect(refused.status == 429)
      #expect(refused.headers["retry-after"] == "2")
      #expect(statuses.last == 429)
    }
  }

  @Test func aFloodOfForgedRequestsNeverStopsGenuineOnes() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let genuine = fixture.pushTarget(alarm.notificationID)
      let id = alarm.notificationID.uuidString.lowercased()
      let forged = genuine.replacingOccurrences(of: id, with: UUID().uuidString.lowercased())
      // Eight forgers and one phone, all from 127.0.0.1, at the same time.
      let (forgedStatuses, genuineStatuses) = try await withThrowingTaskGroup(
        of: (Bool, [Int]).self
      ) { group in
        for _ in 0..<8 {
          group.addTask {
            var statuses: [Int] = []
            for _ in 0..<150 { statuses.append(try await fixture.get(forged).status) }
            return (false, statuses)
          }
        }
        group.addTask {
          var statuses: [Int] = []
          for _ in 0..<30 {
            statuses.append(try await fixture.get(genuine).status)
            try await Task.sleep(for: .milliseconds(5))
          }
          return (true, statuses)
        }
        var forged: [Int] = []
        var genuine: [Int] = []
        for try await (isGenuine, statuses) in group {
          if isGenuine { genuine += statuses } else { forged += statuses }
        }
        return (forged, genuine)
      }
      #expect(genuineStatuses == Array(repeating: 200, count: 30))
      // The forgers' own budget (40 a minute per address) ran out; they got 429s.
      #expect(forgedStatuses.filter { $0 == 404 }.count == 40)
      #expect(forgedStatuses.filter { $0 == 429 }.count == 1160)
      let metrics = try await fixture.monitoring("/metrics").text
      #expect(metrics.contains(#"mowdeck_image_rate_limited_total{limit="client"} 1160.0"#))
    }
  }

  @Test func expiredURLsDrawOnTheClientsBudgetNotTheNotifications() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      let expired = fixture.pushTarget(alarm.notificationID, expiresIn: -5)
      for _ in 0..<40 { #expect(try await fixture.get(expired).status == 410) }
      #expect(try await fixture.get(expired).status == 429)
      // The notification's own budget is untouched.
      #expect(try await fixture.get(fixture.pushTarget(alarm.notificationID)).status == 200)
    }
  }

  @Test func bucketsRefillSmoothlyAndForgetFullKeys() {
    var buckets = TokenBuckets<String>(limit: 4, periodSeconds: 60, capacity: 2)
    var waits: [Double] = []
    var taken: [Bool] = []
    for _ in 0..<4 {
      waits.append(buckets.wait("a", now: 100))
      taken.append(buckets.take("a", now: 100))
    }
    #expect(waits == [0, 0, 0, 0])
    #expect(taken == [true, true, true, true])
    let empty = buckets.wait("a", now: 100)
    let later = buckets.wait("a", now: 110)
    let refilled = buckets.wait("a", now: 116)
    #expect(abs(empty - 15) < 1e-9)
    #expect(abs(later - 5) < 1e-9)
    #expect(refilled == 0)
    // The table holds two keys; a third waits until one has refilled.
    let second = buckets.take("b", now: 116)
    let thirdTooSoon = buckets.take("c", now: 116)
    let thirdLater = buckets.take("c", now: 200)
    #expect(second)
    #expect(!thirdTooSoon)
    #expect(thirdLater)
    #expect(buckets.trackedKeys <= 2)
  }

  @Test func genuineAndUnsignedBudgetsAreIndependent() {
    let limits = ServeLimits(perNotification: 2, total: 3, unsignedPerClient: 1, metrics: Metrics())
    let now = Date(timeIntervalSince1970: 1000)
    let client = ClientAddress(high: 0, low: 0xffff_7f00_0001)
    #expect(limits.admitUnsigned(client, now: now) == .allowed)
    #expect(limits.admitUnsigned(client, now: now) == .limited(retryAfter: 60))
    let a = UUID()
    let b = UUID()
    #expect(limits.admitGenuine(a, now: now) == .allowed)
    #expect(limits.admitGenuine(a, now: now) == .allowed)
    #expect(limits.admitGenuine(a, now: now) == .limited(retryAfter: 30))
    #expect(limits.admitGenuine(b, now: now) == .allowed)
    // The total (3) is spent; a refusal by the total takes nothing from `b`'s own budget.
    #expect(limits.admitGenuine(b, now: now) == .limited(retryAfter: 20))
    #expect(limits.admitGenuine(b, now: now.addingTimeInterval(20)) == .allowed)
  }
}
