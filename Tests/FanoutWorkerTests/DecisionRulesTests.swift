import Events
import Foundation
import Infrastructure
import Testing

@testable import FanoutWorker

/// The boundaries of docs/interfaces.md#alarm-classes, as a pure function.
@Suite struct DecisionRulesTests {
  let rules = DecisionRules(configuration: try! Configuration.load(from: [:]))
  let t0 = Date(timeIntervalSince1970: 1_800_000_000)

  func decide(
    _ alarmClass: AlarmClass, after seconds: Double, state: MowerState, reservations: Int = 0,
    recipients: Int = 1
  ) -> Decision {
    rules.decide(
      alarmClass, at: t0.addingTimeInterval(seconds), state: state,
      reservationsInLastDay: reservations, recipients: recipients)
  }

  @Test(arguments: [(299.0, true), (299.999, true), (300.0, false), (301.0, false)])
  func errorCooldownIs300Seconds(after: Double, suppressed: Bool) {
    let decision = decide(.error, after: after, state: MowerState(lastErrorPush: t0))
    #expect((decision == .suppressed(lastPush: t0, cooldownSeconds: 300)) == suppressed)
  }

  @Test(arguments: [(599.0, true), (600.0, false), (601.0, false)])
  func theftCooldownIs600Seconds(after: Double, suppressed: Bool) {
    let decision = decide(.theft, after: after, state: MowerState(lastTheftPush: t0))
    #expect((decision == .suppressed(lastPush: t0, cooldownSeconds: 600)) == suppressed)
  }

  @Test func cooldownsAreKeptPerClass() {
    let state = MowerState(lastTheftPush: t0, lastErrorPush: nil, lastPhoto: nil)
    #expect(decide(.error, after: 10, state: state) == .pushed(.reserved))
    #expect(decide(.routine, after: 10, state: state) == .pushed(.none))
  }

  @Test(arguments: [(59.0, Decision.pushed(.skipped(.minInterval))), (60.0, .pushed(.reserved))])
  func photoIntervalIs60Seconds(after: Double, expected: Decision) {
    #expect(decide(.theft, after: after, state: MowerState(lastPhoto: t0)) == expected)
  }

  @Test(arguments: [(5, Decision.pushed(.reserved)), (6, .pushed(.skipped(.dailyLimit)))])
  func atMostSixPhotosPerDay(reservationsBefore: Int, expected: Decision) {
    #expect(
      decide(.error, after: 0, state: MowerState(), reservations: reservationsBefore) == expected)
  }

  @Test func noRecipientsNoPhoto() {
    #expect(
      decide(.theft, after: 0, state: MowerState(), recipients: 0)
        == .pushed(.skipped(.noRecipients)))
  }

  @Test func routineAlarmsNeverTakeAPhoto() {
    #expect(decide(.routine, after: 0, state: MowerState()) == .pushed(.none))
  }

  @Test func aFutureOccurredAtIsClampedToTheReceiveTime() {
    let received = t0
    #expect(
      DecisionRules.decisionTime(occurredAt: t0.addingTimeInterval(3600), receivedAt: received)
        == received)
    #expect(
      DecisionRules.decisionTime(occurredAt: t0.addingTimeInterval(-5), receivedAt: received)
        == t0.addingTimeInterval(-5))
  }
}
