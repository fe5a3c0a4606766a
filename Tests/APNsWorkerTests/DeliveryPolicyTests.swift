import Foundation
import Testing

@testable import APNsWorker

/// The response matrix of issue 4, row by row.
@Suite struct DeliveryPolicyTests {
  let registered = Date(timeIntervalSince1970: 1_800_000_000)

  func response(_ status: Int, _ body: String = "", apnsID: String? = nil) -> HTTPResult {
    .response(
      status: status, headers: apnsID.map { ["apns-id": $0] } ?? [:], body: Array(body.utf8))
  }

  func classify(_ result: HTTPResult) -> DeliveryAction {
    DeliveryPolicy.classify(result, deviceRegisteredAt: registered)
  }

  @Test func okIsSentWithTheAPNsID() {
    #expect(classify(response(200, apnsID: "A-1")) == .sent(apnsID: "A-1"))
  }

  @Test(arguments: [429, 500, 502, 503])
  func throttlingAndServerErrorsAreRetried(status: Int) {
    guard case .retry(status, _) = classify(response(status, "{\"reason\":\"TooManyRequests\"}"))
    else {
      Issue.record("\(status) must be retried")
      return
    }
  }

  @Test func networkFailuresAreRetried() {
    guard case .retry(nil, let reason) = classify(.failure("Connection reset")) else {
      Issue.record("a network failure must be retried")
      return
    }
    #expect(reason.contains("Connection reset"))
  }

  @Test(arguments: ["ExpiredProviderToken", "InvalidProviderToken"])
  func aRejectedProviderTokenIsRenewed(reason: String) {
    #expect(
      classify(response(403, "{\"reason\":\"\(reason)\"}")) == .renewTokenAndRetry(reason: reason))
  }

  @Test func aBadDeviceTokenDeactivatesTheDevice() {
    #expect(
      classify(response(400, "{\"reason\":\"BadDeviceToken\"}"))
        == .failed(
          status: 400, reason: "BadDeviceToken", deactivateDevice: true, apnsTimestamp: nil))
  }

  @Test func unregisteredAfterTheRegistrationDeactivates() {
    let later = Int64(registered.timeIntervalSince1970 * 1000) + 1
    #expect(
      classify(response(410, "{\"reason\":\"Unregistered\",\"timestamp\":\(later)}"))
        == .failed(
          status: 410, reason: "Unregistered", deactivateDevice: true, apnsTimestamp: later))
  }

  @Test func unregisteredBeforeTheRegistrationKeepsTheDevice() {
    let earlier = Int64(registered.timeIntervalSince1970 * 1000) - 1
    #expect(
      classify(response(410, "{\"reason\":\"Unregistered\",\"timestamp\":\(earlier)}"))
        == .failed(
          status: 410, reason: "Unregistered", deactivateDevice: false, apnsTimestamp: earlier))
  }

  @Test(arguments: [
    (400, "BadTopic"), (400, "PayloadEmpty"), (403, "BadCertificate"), (404, "BadPath"),
    (413, "PayloadTooLarge"), (405, "MethodNotAllowed"),
  ])
  func otherClientErrorsFailForGoodWithTheirReason(status: Int, reason: String) {
    #expect(
      classify(response(status, "{\"reason\":\"\(reason)\"}"))
        == .failed(status: status, reason: reason, deactivateDevice: false, apnsTimestamp: nil))
  }

  @Test func backoffGrowsAndIsCapped() {
    for attempt in 1...12 {
      let delay = DeliveryPolicy.retryDelay(attempt: attempt)
      let ceiling = min(300, pow(2, Double(attempt - 1)))
      #expect(delay >= ceiling / 2 && delay <= ceiling)
    }
  }

  @Test(arguments: [
    (String(repeating: "a", count: 64), true), (String(repeating: "A", count: 64), true),
    (String(repeating: "a", count: 63), false), (String(repeating: "g", count: 64), false),
    (String(repeating: "a", count: 63) + "/", false), ("", false),
  ])
  func tokensMustBe64HexDigits(token: String, wellFormed: Bool) {
    #expect(DeliveryPolicy.isWellFormed(token: token) == wellFormed)
  }
}
