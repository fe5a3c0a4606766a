import Foundation
import Infrastructure
import Testing

@testable import APNsWorker

/// The response matrix of issue 4, row by row.
@Suite struct DeliveryPolicyTests {
  let registered = Date(timeIntervalSince1970: 1_800_000_000)

  func response(_ status: Int, _ body: String = "", apnsID: String? = nil) -> HTTPClientResult {
    .response(
      status: status, headers: apnsID.map { ["apns-id": $0] } ?? [:], body: Array(body.utf8))
  }

  func classify(_ result: HTTPClientResult) -> DeliveryAction {
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

  /// The body is read leniently (`APNsRefusal`): one that is no JSON object, or whose
  /// `reason` is missing or not a string, is known by its status; a `timestamp` that is not
  /// a whole number is absent, and costs the reason nothing.
  @Test(arguments: [
    (500, "", DeliveryAction.retry(status: 500, reason: "status 500")),
    (
      400, "<html>Bad Gateway</html>",
      .failed(status: 400, reason: "status 400", deactivateDevice: false, apnsTimestamp: nil)
    ),
    (
      400, #"["BadDeviceToken"]"#,
      .failed(status: 400, reason: "status 400", deactivateDevice: false, apnsTimestamp: nil)
    ),
    (
      400, "{}",
      .failed(status: 400, reason: "status 400", deactivateDevice: false, apnsTimestamp: nil)
    ),
    (
      400, #"{"reason":5}"#,
      .failed(status: 400, reason: "status 400", deactivateDevice: false, apnsTimestamp: nil)
    ),
    (
      400, #"{"reason":null,"timestamp":1}"#,
      .failed(status: 400, reason: "status 400", deactivateDevice: false, apnsTimestamp: nil)
    ),
    (
      410, #"{"reason":"Unregistered","timestamp":"soon"}"#,
      .failed(status: 410, reason: "Unregistered", deactivateDevice: true, apnsTimestamp: nil)
    ),
    (
      410, #"{"reason":"Unregistered","timestamp":1800000000000.5}"#,
      .failed(status: 410, reason: "Unregistered", deactivateDevice: true, apnsTimestamp: nil)
    ),
    (
      410, #"{"timestamp":1.8e12,"reason":"Unregistered","extra":[{}]}"#,
      .failed(
        status: 410, reason: "Unregistered", deactivateDevice: false,
        apnsTimestamp: 1_800_000_000_000)
    ),
    (
      403, #"{"reason":"Expired\u0050roviderToken"}"#,
      .renewTokenAndRetry(reason: "ExpiredProviderToken")
    ),
  ])
  func aBodyThatIsNoJSONOrLacksAReasonIsKnownByItsStatus(
    status: Int, body: String, action: DeliveryAction
  ) {
    #expect(classify(response(status, body)) == action)
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
