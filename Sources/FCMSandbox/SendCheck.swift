import Foundation
import Infrastructure

/// What the FCM HTTP v1 API checks of a send, in Google's order: the bearer token, its
/// scope, the project, the message; then the registration token's programmed answer.
struct SendCheck: Sendable {
  let projectID: String
  let accessTokens: AccessTokens
  let registrations: Registrations
  let acceptAnyToken: Bool

  struct Outcome {
    var status: Int
    var body: [UInt8]
    var retryAfter: Int?
    /// How long to hold the answer (the token's delay_ms).
    var delayMilliseconds = 0
  }

  func check(_ request: HTTPRequest, project: String, now: Date, line: inout RecordLine)
    -> Outcome
  {
    line.project = project
    func refuse(_ error: GoogleError, code: String? = nil) -> Outcome {
      line.status = error.error.code
      line.error = code ?? error.error.status
      line.detail = error.error.message
      return Outcome(status: error.error.code, body: WireCoding.encode(error))
    }
    let bearer = Self.bearer(request.headers["Authorization"])
    line.accessToken = bearer
    switch bearer.map({ accessTokens.verdict(on: $0, now: now) }) ?? .unknown {
    case .valid: break
    case .unknown:
      return refuse(
        Self.unauthenticated(
          bearer == nil ? "CREDENTIALS_MISSING" : "ACCESS_TOKEN_TYPE_UNSUPPORTED"))
    case .expired: return refuse(Self.unauthenticated("ACCESS_TOKEN_EXPIRED"))
    case .insufficientScope:
      return refuse(
        GoogleError(
          code: 403, message: "Request had insufficient authentication scopes.",
          status: "PERMISSION_DENIED", details: [.errorInfo("ACCESS_TOKEN_SCOPE_INSUFFICIENT")]))
    }
    guard project == projectID else {
      return refuse(
        GoogleError(
          code: 403,
          message: "Permission 'cloudmessaging.messages.create' denied on resource "
            + "'//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).",
          status: "PERMISSION_DENIED", details: [.errorInfo("IAM_PERMISSION_DENIED")]))
    }
    let valid: MessageCheck.Valid
    switch MessageCheck.check(request.body) {
    case .success(let message): valid = message
    case .failure(let error):
      return refuse(error, code: error.error.details.first?.errorCode)
    }
    line.registrationToken = valid.token
    line.message = valid.message
    let registration =
      registrations[valid.token] ?? Registration(answer: acceptAnyToken ? .ok : .unregistered)
    if let error = registration.answer.error {
      var outcome = refuse(error, code: registration.answer.rawValue)
      outcome.retryAfter = registration.retryAfter
      outcome.delayMilliseconds = registration.delayMilliseconds
      return outcome
    }
    let name =
      "projects/\(project)/messages/0:\(Int(now.timeIntervalSince1970 * 1e6))%"
      + Hex.encode(randomBytes(8))
    line.status = 200
    line.name = name
    return Outcome(
      status: 200, body: WireCoding.encode(SendAnswer(name: name)),
      delayMilliseconds: registration.delayMilliseconds)
  }

  /// The token of `Bearer <token>` (the scheme in any case), or nil.
  static func bearer(_ header: String?) -> String? {
    guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else {
      return nil
    }
    let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
    return token.isEmpty ? nil : token
  }

  static func unauthenticated(_ reason: String) -> GoogleError {
    GoogleError(
      code: 401,
      message: "Request had invalid authentication credentials. Expected OAuth 2 access token, "
        + "login cookie or other valid authentication credential. See "
        + "https://developers.google.com/identity/sign-in/web/devconsole-project.",
      status: "UNAUTHENTICATED", details: [.errorInfo(reason)])
  }
}
