import Events
import Foundation
import Infrastructure

/// A request after the checks APNs makes: what it carried, and the error answer it gets
/// when one check fails (nil when it is a valid push).
struct CheckedPush {
  var token: String?
  var claims: ProviderTokenClaims?
  /// The body parsed as JSON, when it is JSON.
  var payload: JSONValue?
  var rejection: Answer?
}

/// The provider API's request checks, in roughly the order Apple applies them; the first
/// failure decides the answer, as with APNs.
final class PushCheck {
  let topic: String
  private let verifier: ProviderTokenVerifier

  init(topic: String, verifier: ProviderTokenVerifier) {
    self.topic = topic
    self.verifier = verifier
  }

  func check(_ request: PushRequest, now: Date) -> CheckedPush {
    var result = CheckedPush(token: request.pathToken)
    if request.bodyLength > 0, request.bodyLength <= PushRequest.payloadLimit {
      result.payload = JSONValue.parse(request.body)
    }
    let token = verifier.check(authorization: request.headers["authorization"], now: now)
    result.claims = token.claims
    var payloadIsObject = false
    if case .object = result.payload { payloadIsObject = true }
    result.rejection = firstProblem(request, token: token, payloadIsObject: payloadIsObject)
      .map(Answer.init)
    return result
  }

  private func firstProblem(
    _ request: PushRequest, token: ProviderTokenVerifier.Outcome, payloadIsObject: Bool
  ) -> APNsReason? {
    guard request.method == "POST" else { return .methodNotAllowed }
    guard let deviceToken = request.pathToken else { return .badPath }
    guard !deviceToken.isEmpty else { return .missingDeviceToken }
    guard DeviceToken.isValid(deviceToken) else { return .badDeviceToken }
    guard request.repeatedHeaders.isEmpty else { return .duplicateHeaders }
    if let reason = token.reason { return reason }

    let headers = request.headers
    guard let topic = headers["apns-topic"] else { return .missingTopic }
    guard topic == self.topic else { return .badTopic }
    // Apple makes push type and priority optional; the contract makes the client send them,
    // so the sandbox insists, to catch a client that forgets.
    guard headers["apns-push-type"] == "alert" else { return .invalidPushType }
    guard headers["apns-priority"] == "10" else { return .badPriority }
    guard let expiration = headers["apns-expiration"], !expiration.isEmpty,
      expiration.utf8.allSatisfy({ (48...57).contains($0) })
    else { return .badExpirationDate }
    if let id = headers["apns-id"], UUID(uuidString: id) == nil { return .badMessageId }
    if let collapseID = headers["apns-collapse-id"], collapseID.utf8.count > 64 {
      return .badCollapseId
    }

    guard request.bodyLength <= PushRequest.payloadLimit else { return .payloadTooLarge }
    guard request.bodyLength > 0 else { return .payloadEmpty }
    guard payloadIsObject else { return .badPayload }
    return nil
  }
}
