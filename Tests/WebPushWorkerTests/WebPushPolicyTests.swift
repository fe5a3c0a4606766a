import Events
import Foundation
import Infrastructure
import Testing

@testable import WebPushWorker

/// What each push service answer means, row by row.
@Suite struct WebPushPolicyTests {
  func answer(_ status: Int, retryAfter: String? = nil) -> ChannelAnswer {
    WebPushPolicy.classify(
      .response(status: status, headers: retryAfter.map { ["retry-after": $0] } ?? [:], body: []))
  }

  @Test func theAnswersAreClassed() {
    #expect(answer(201) == .sent(status: 201))
    #expect(answer(202) == .sent(status: 202))
    #expect(
      answer(404) == .failed(status: 404, reason: "subscription_gone", deactivateDevice: true))
    #expect(
      answer(410) == .failed(status: 410, reason: "subscription_gone", deactivateDevice: true))
    #expect(
      answer(413) == .failed(status: 413, reason: "payload_too_large", deactivateDevice: false))
    #expect(answer(403) == .failed(status: 403, reason: "vapid_refused", deactivateDevice: false))
    #expect(answer(400) == .failed(status: 400, reason: "refused", deactivateDevice: false))
    #expect(
      answer(429, retryAfter: "7")
        == .retry(status: 429, reason: "too_many_requests", notBeforeSeconds: 7))
    #expect(
      answer(503) == .retry(status: 503, reason: "push_service_error", notBeforeSeconds: nil))
    #expect(
      WebPushPolicy.classify(.failure("Connection refused"))
        == .retry(status: nil, reason: "network: Connection refused", notBeforeSeconds: nil))
  }

  /// A redirect fails the delivery for good and keeps the subscription: the worker never
  /// goes where `Location` points, and a retry would only be redirected again.
  @Test(arguments: [301, 302, 303, 307, 308])
  func aRedirectIsAFailureForGoodThatIsNotFollowed(status: Int) {
    let answer = WebPushPolicy.classify(
      .response(
        status: status, headers: ["location": "https://169.254.169.254/latest/meta-data"],
        body: []))
    #expect(
      answer == .failed(status: status, reason: "redirect_not_followed", deactivateDevice: false))
  }
}
