import Events
import Foundation
import Infrastructure
import Testing

@testable import FCMWorker

/// What each answer FCM documents means, row by row, with the error bodies FCM writes.
@Suite struct FCMPolicyTests {
  static func errorBody(
    _ code: Int, _ status: String, _ message: String, fcmCode: String? = nil,
    fieldViolation: String? = nil
  ) -> [UInt8] {
    var details: [String] = []
    if let fcmCode {
      details.append(
        #"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(fcmCode)"}"#
      )
    }
    if let fieldViolation {
      details.append(
        #"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"\#(fieldViolation)","description":"x"}]}"#
      )
    }
    return Array(
      #"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)","details":[\#(details.joined(separator: ","))]}}"#
        .utf8)
  }

  func read(_ status: Int, _ body: [UInt8] = [], retryAfter: String? = nil) -> FCMPolicy.Reading {
    FCMPolicy.read(
      .response(
        status: status, headers: retryAfter.map { ["retry-after": $0] } ?? [:], body: body))
  }

  @Test func aSentMessage() {
    #expect(
      read(200, Array(#"{"name":"projects/p/messages/0:1"}"#.utf8)) == .answer(.sent(status: 200)))
  }

  @Test func anUnregisteredTokenSwitchesTheDeviceOff() {
    let body = Self.errorBody(
      404, "NOT_FOUND", "Requested entity was not found.", fcmCode: "UNREGISTERED")
    #expect(
      read(404, body)
        == .answer(.failed(status: 404, reason: "unregistered", deactivateDevice: true)))
  }

  @Test func aBare404WithoutFCMsCodeSwitchesNothingOff() {
    // A wrong URL or a proxy's page must not cost every device its registration.
    #expect(
      read(404, Array("<html>Not Found</html>".utf8))
        == .answer(.failed(status: 404, reason: "status 404", deactivateDevice: false)))
  }

  @Test func anInvalidRegistrationTokenSwitchesTheDeviceOff() {
    let byMessage = Self.errorBody(
      400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
      fcmCode: "INVALID_ARGUMENT")
    let byField = Self.errorBody(
      400, "INVALID_ARGUMENT", "Invalid value", fcmCode: "INVALID_ARGUMENT",
      fieldViolation: "message.token")
    for body in [byMessage, byField] {
      #expect(
        read(400, body)
          == .answer(
            .failed(status: 400, reason: "invalid_registration_token", deactivateDevice: true)))
    }
  }

  @Test func anInvalidArgumentAboutAnotherFieldFailsTheMessageOnly() {
    let body = Self.errorBody(
      400, "INVALID_ARGUMENT", "Invalid value at 'message.android.ttl'",
      fcmCode: "INVALID_ARGUMENT", fieldViolation: "message.android.ttl")
    #expect(
      read(400, body)
        == .answer(.failed(status: 400, reason: "invalid_argument", deactivateDevice: false)))
  }

  @Test(arguments: [
    (429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", "quota_exceeded"),
    (503, "UNAVAILABLE", "UNAVAILABLE", "unavailable"),
    (500, "INTERNAL", "INTERNAL", "internal"),
  ])
  func aBusyOrFailingServiceIsRetriedNotBeforeItsRetryAfter(
    status: Int, googleStatus: String, code: String, reason: String
  ) {
    let body = Self.errorBody(status, googleStatus, "busy", fcmCode: code)
    #expect(
      read(status, body, retryAfter: "42")
        == .answer(.retry(status: status, reason: reason, notBeforeSeconds: 42)))
    #expect(
      read(status, body) == .answer(.retry(status: status, reason: reason, notBeforeSeconds: nil)))
  }

  @Test func a5xxOrANetworkFailureWithoutABodyIsRetried() {
    #expect(
      read(502, Array("bad gateway".utf8))
        == .answer(.retry(status: 502, reason: "status 502", notBeforeSeconds: nil)))
    #expect(
      FCMPolicy.read(.failure("Connection refused"))
        == .answer(
          .retry(status: nil, reason: "network: Connection refused", notBeforeSeconds: nil)))
  }

  @Test func aSenderIDMismatchFailsForGoodAndKeepsTheDevice() {
    let body = Self.errorBody(
      403, "PERMISSION_DENIED", "SenderId mismatch", fcmCode: "SENDER_ID_MISMATCH")
    #expect(
      read(403, body)
        == .answer(.failed(status: 403, reason: "sender_id_mismatch", deactivateDevice: false)))
  }

  @Test func anotherRefusalFailsForGood() {
    let body = Self.errorBody(403, "PERMISSION_DENIED", "Permission denied")
    #expect(
      read(403, body)
        == .answer(.failed(status: 403, reason: "permission_denied", deactivateDevice: false)))
    #expect(
      read(413) == .answer(.failed(status: 413, reason: "status 413", deactivateDevice: false)))
  }

  @Test func a401RenewsTheAccessTokenUnlessItIsAThirdPartyAuthError() {
    let expired = Self.errorBody(401, "UNAUTHENTICATED", "Request had invalid credentials.")
    #expect(read(401, expired) == .accessTokenRefused)
    #expect(read(401) == .accessTokenRefused)
    let thirdParty = Self.errorBody(
      401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service",
      fcmCode: "THIRD_PARTY_AUTH_ERROR")
    #expect(
      read(401, thirdParty) == .credentialsRefused(status: 401, reason: "third_party_auth_error"))
  }

  @Test func theReasonRecordedIsCleanedAndShort() {
    let body = Self.errorBody(400, "BAD\\u0000" + String(repeating: "X", count: 300), "x")
    guard case .answer(.failed(_, let reason, false)) = read(400, body) else {
      Issue.record("not a failure")
      return
    }
    #expect(reason.count == 64 && !reason.contains("\u{0}"))
  }
}
