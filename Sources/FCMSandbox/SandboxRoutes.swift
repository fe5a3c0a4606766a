import Foundation
import Infrastructure

extension SandboxState {
  func addRoutes(to router: inout HTTPRouter, logger: Logger) {
    router.add("POST", "/token") { request in self.port.whenKnown { self.token(request) } }
    router.add("POST", "/v1/projects/{project}/messages:send") { request in
      self.send(request, logger: logger)
    }
    router.add("POST", "/tokens") { request in .now(self.makeRegistration(request)) }
    router.add("POST", "/token-endpoint") { request in .now(self.changeGrants(request)) }
    router.add("POST", "/access-tokens/expire") { _ in
      .now(.json(200, ExpiredAnswer(expired: self.accessTokens.expireAll(now: Date()))))
    }
  }

  /// The token endpoint: checks the assertion, then answers as `POST /token-endpoint` set.
  private func token(_ request: HTTPRequest) -> HTTPReply {
    guard let tokenURL else { return .now(.plain(503)) }
    let behaviour = grantBehaviour.withLock { $0 }
    return reply(after: behaviour.delayMilliseconds) {
      let now = Date()
      var line = RecordLine(route: .token, time: now, http2: request.http2)
      let check = AssertionCheck(
        tokenURL: tokenURL, clientEmail: self.options.clientEmail, key: self.publicKey)
      let response: HTTPResponse
      switch check.check(request.body, now: now, line: &line) {
      case .failure(let error): response = Self.refuse(error, line: &line)
      case .success(let scope):
        response = self.grant(scope: scope, behaviour: behaviour, now: now, line: &line)
      }
      self.record(line)
      return response
    }
  }

  private func grant(scope: String, behaviour: GrantBehaviour, now: Date, line: inout RecordLine)
    -> HTTPResponse
  {
    switch behaviour.answer {
    case .ok:
      let token = accessTokens.grant(scope: scope, lifetime: behaviour.expiresIn, now: now)
      line.status = 200
      line.accessToken = token
      line.expiresIn = behaviour.expiresIn
      return .json(200, TokenGrant(accessToken: token, expiresIn: behaviour.expiresIn))
    case .invalidGrant:
      return Self.refuse(.invalidGrant("Invalid JWT Signature."), line: &line)
    case .unavailable:
      let error = OAuthError(
        status: 503, error: "temporarily_unavailable",
        errorDescription: "The token endpoint is unavailable; try again later.")
      return Self.refuse(error, line: &line)
    }
  }

  private static func refuse(_ error: OAuthError, line: inout RecordLine) -> HTTPResponse {
    line.status = error.status
    line.error = error.error
    line.detail = error.errorDescription
    return .json(error.status, error)
  }

  private func send(_ request: HTTPRequest, logger: Logger) -> HTTPReply {
    let now = Date()
    var line = RecordLine(route: .send, time: now, http2: request.http2)
    let check = SendCheck(
      projectID: options.projectID, accessTokens: accessTokens, registrations: registrations,
      acceptAnyToken: options.acceptAnyToken)
    let outcome = check.check(
      request, project: String(request.parameters[0]), now: now, line: &line)
    let recorded = line
    return reply(after: outcome.delayMilliseconds) {
      var response = HTTPResponse(
        status: outcome.status, headers: [("Content-Type", "application/json")],
        body: outcome.body)
      if let seconds = outcome.retryAfter {
        response = response.adding("Retry-After", String(seconds))
      }
      self.record(recorded)
      logger.debug("send", ["status": recorded.status, "error": recorded.error ?? ""])
      return response
    }
  }

  private func makeRegistration(_ request: HTTPRequest) -> HTTPResponse {
    do {
      let asked = try Self.decode(RegistrationRequest.self, request, empty: RegistrationRequest())
      let token = registrations.add(try Registration(asked))
      return .json(201, RegistrationAnswer(token: token))
    } catch {
      return .json(400, ControlError(error: "\(error)"))
    }
  }

  private func changeGrants(_ request: HTTPRequest) -> HTTPResponse {
    do {
      let asked = try Self.decode(GrantRequest.self, request, empty: GrantRequest())
      let now = try grantBehaviour.withLock { behaviour throws(GrantBehaviour.Invalid) in
        behaviour = try behaviour.updated(by: asked)
        return behaviour
      }
      return .json(200, now.request)
    } catch {
      return .json(400, ControlError(error: "\(error)"))
    }
  }

  /// A control body; `empty` for none at all.
  private static func decode<T: Decodable>(_ type: T.Type, _ request: HTTPRequest, empty: T)
    throws(WireError) -> T
  {
    request.body.isEmpty ? empty : try WireCoding.decode(type, from: request.body)
  }
}
