import Events
import Foundation
import Infrastructure
import Testing

@testable import NtfyWorker

/// What each answer of an ntfy server means, row by row.
@Suite struct NtfyPolicyTests {
  func answer(_ status: Int, retryAfter: String? = nil) -> ChannelAnswer {
    NtfyPolicy.classify(
      .response(status: status, headers: retryAfter.map { ["retry-after": $0] } ?? [:], body: []))
  }

  @Test func theAnswersAreClassed() {
    #expect(answer(200) == .sent(status: 200))
    #expect(
      answer(429, retryAfter: "7")
        == .retry(status: 429, reason: "too_many_requests", notBeforeSeconds: 7))
    #expect(answer(429) == .retry(status: 429, reason: "too_many_requests", notBeforeSeconds: nil))
    for status in [500, 502, 503, 507] {
      #expect(
        answer(status) == .retry(status: status, reason: "ntfy_server_error", notBeforeSeconds: nil)
      )
    }
    #expect(
      answer(503, retryAfter: "30")
        == .retry(status: 503, reason: "ntfy_server_error", notBeforeSeconds: 30))
    #expect(
      NtfyPolicy.classify(.failure("Connection refused"))
        == .retry(status: nil, reason: "network: Connection refused", notBeforeSeconds: nil))
  }

  @Test func refusedCredentialsAreRetriedAfterAMinuteNotFailed() {
    for status in [401, 403] {
      #expect(
        answer(status)
          == .retry(status: status, reason: "credentials_refused", notBeforeSeconds: 60))
    }
    #expect(
      answer(401, retryAfter: "300")
        == .retry(status: 401, reason: "credentials_refused", notBeforeSeconds: 300))
  }

  @Test func otherRefusalsFailForGoodAndNeverSwitchTheDeviceOff() {
    #expect(
      answer(413) == .failed(status: 413, reason: "payload_too_large", deactivateDevice: false))
    for status in [400, 404, 410, 422] {
      #expect(answer(status) == .failed(status: status, reason: "refused", deactivateDevice: false))
    }
  }

  @Test func aStoredTopicTheServerCouldNotHaveMadeFailsAndSwitchesTheDeviceOff() async {
    let channel = NtfyChannel(
      client: HTTPClient(caFile: nil, threadName: "ntfy-test"), settings: NtfyRequestTests.settings,
      logger: Logger(component: "test", sink: { _ in }))
    defer { channel.shutdown() }
    let delivery = NtfyRequestTests.delivery()
    let stored = ChannelDelivery(
      deliveryID: delivery.deliveryID, notificationID: delivery.notificationID,
      eventID: delivery.eventID, leaseToken: 1, attempt: 1, createdAt: Date(), followup: false,
      platform: .ntfy, deviceID: delivery.deviceID, address: "../v1/account", webPushKeys: nil,
      deviceActive: true, imageID: nil, kind: "mower_lifted", alarmClass: "theft",
      mowerName: nil, reason: nil)
    #expect(
      await channel.attempt(stored, imageURL: nil, now: Date())
        == .failed(status: nil, reason: "bad_topic", deactivateDevice: true))
  }
}
