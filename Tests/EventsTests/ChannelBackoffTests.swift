import Events
import Foundation
import Testing

/// Every channel's backoff: `Retry-After` honoured and bounded, and a retry that would fall
/// past the half hour failed instead.
@Suite struct ChannelBackoffTests {
  @Test func retryAfterIsHonouredAndBounded() {
    #expect(ChannelBackoff.retryAfterSeconds("120") == 120)
    #expect(ChannelBackoff.retryAfterSeconds(" 5 ") == 5)
    #expect(ChannelBackoff.retryAfterSeconds("99999") == 3600)
    #expect(ChannelBackoff.retryAfterSeconds("-1") == nil)
    #expect(ChannelBackoff.retryAfterSeconds("Wed, 21 Oct 2026 07:28:00 GMT") == nil)
    for attempt in 1...12 {
      #expect(ChannelBackoff.retryDelay(attempt: attempt, notBefore: 90) >= 90)
      #expect(ChannelBackoff.retryDelay(attempt: attempt, notBefore: nil) <= 300)
    }
  }

  static func delivery(age: TimeInterval, now: Date) -> ChannelDelivery {
    ChannelDelivery(
      deliveryID: UUID(), notificationID: UUID(), eventID: UUID(), leaseToken: 1, attempt: 3,
      createdAt: now.addingTimeInterval(-age), followup: false, platform: .ntfy,
      deviceID: UUID(), address: "mowdeck-topic", webPushKeys: nil, deviceActive: true,
      imageID: nil, kind: "mower_lifted", alarmClass: "theft", mowerName: nil, reason: nil)
  }

  @Test func answersBecomeOutcomesAndAnOldRetryFails() {
    let now = Date()
    let young = Self.delivery(age: 60, now: now)
    #expect(
      ChannelBackoff.outcome(
        of: .sent(status: 200), for: young, latencyMs: 7, hasImage: true, now: now)
        == .sent(status: 200, latencyMs: 7, hasImage: true))
    let retry = ChannelBackoff.outcome(
      of: .retry(status: 429, reason: "too_many_requests", notBeforeSeconds: 30), for: young,
      latencyMs: 1, hasImage: false, now: now)
    #expect(retry.state == "queued" && retry.retryAfter >= 30)
    let old = ChannelBackoff.outcome(
      of: .retry(status: 503, reason: "push_service_error", notBeforeSeconds: 120),
      for: Self.delivery(age: ChannelBackoff.maximumAgeSeconds - 60, now: now), latencyMs: 1,
      hasImage: false, now: now)
    #expect(
      old
        == .failed(
          status: 503, reason: "too_old_to_matter (push_service_error)", deactivateDevice: false))
    #expect(
      ChannelBackoff.outcome(
        of: .failed(status: 404, reason: "UNREGISTERED", deactivateDevice: true), for: young,
        latencyMs: 1, hasImage: false, now: now
      ).deactivatesDevice)
  }
}
