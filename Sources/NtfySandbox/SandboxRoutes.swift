import Foundation
import Infrastructure

extension SandboxState {
  func addRoutes(to router: inout HTTPRouter, logger: Logger) {
    // ntfy publishes with POST or PUT alike, to the topic or to one of its sequence ids.
    let publish: HTTPRouter.Handler = { request in
      self.publish(request, topic: String(request.parameters[0]), sequenceID: nil, logger)
    }
    let publishInSequence: HTTPRouter.Handler = { request in
      self.publish(
        request, topic: String(request.parameters[0]),
        sequenceID: String(request.parameters[1]), logger)
    }
    router.add("POST", "/{topic}", publish)
    router.add("PUT", "/{topic}", publish)
    router.add("POST", "/{topic}/{sequence}", publishInSequence)
    router.add("PUT", "/{topic}/{sequence}", publishInSequence)
    router.get("/{topic}/json") { request in .now(self.poll(request)) }
    router.get("/sandbox/topics/{topic}/view") { request in
      .now(Self.lines(self.topics.view(String(request.parameters[0]))))
    }
    router.add("POST", "/sandbox/topics/{topic}") { request in
      .now(self.program(request, topic: String(request.parameters[0])))
    }
  }

  /// Checks a publish, then answers as the topic is programmed: by default the message,
  /// kept in the topic. The publish is kept and recorded when it is answered.
  private func publish(
    _ request: HTTPRequest, topic: String, sequenceID: String?, _ logger: Logger
  ) -> HTTPReply {
    let now = Date()
    var line = RecordLine(time: now, topic: topic)
    let checked = PublishCheck(token: token).check(
      request, topic: topic, pathSequenceID: sequenceID, now: now, line: &line)
    let behaviour = topics.behaviour(of: topic)
    let read = line
    let answer = { @Sendable () -> HTTPResponse in
      var line = read
      let response = self.answer(checked, behaviour: behaviour, line: &line)
      self.recorder?.append(line)
      logger.debug("publish", ["status": line.status, "error": line.error ?? ""])
      return response
    }
    guard behaviour.delayMilliseconds > 0, case .success = checked else { return .now(answer()) }
    return .later {
      try? await Task.sleep(for: .milliseconds(behaviour.delayMilliseconds))
      return answer()
    }
  }

  private func answer(
    _ checked: Result<NtfyMessage, NtfyError>, behaviour: TopicBehaviour, line: inout RecordLine
  ) -> HTTPResponse {
    let message: NtfyMessage
    switch checked {
    case .failure(let error):
      line.status = error.http
      line.error = error.error
      return error.response
    case .success(let checkedMessage):
      message = checkedMessage
    }
    line.status = behaviour.status
    guard behaviour.status == 200 else {
      var response =
        NtfyError.programmed(behaviour.status)?.response ?? .plain(behaviour.status)
      if let seconds = behaviour.retryAfter {
        response = response.adding("Retry-After", String(seconds))
      }
      return response
    }
    topics.keep(message)
    line.id = message.id
    return .json(200, message)
  }

  /// `GET /TOPIC/json?poll=1`: every message kept, behind the same token as publishing.
  private func poll(_ request: HTTPRequest) -> HTTPResponse {
    let topic = String(request.parameters[0])
    guard PublishCheck.isValidName(topic) else { return NtfyError.topicInvalid.response }
    if let token {
      guard let authorization = request.headers["Authorization"] else {
        return NtfyError.forbidden.response
      }
      guard PublishCheck.bearer(authorization) == token else {
        return NtfyError.unauthorized.response
      }
    }
    let query = FormURLEncoding.decode(Array((request.query ?? "").utf8)) ?? [:]
    guard ["1", "yes", "true"].contains(query["poll"]?.lowercased() ?? "") else {
      var error = NtfyError.badRequest
      error.error = "invalid request: this double answers only poll=1, it does not stream"
      return error.response
    }
    return Self.lines(topics.poll(topic))
  }

  private func program(_ request: HTTPRequest, topic: String) -> HTTPResponse {
    guard PublishCheck.isValidName(topic) else {
      return .json(400, ControlError(error: "topic must be 1 to 64 of [-_A-Za-z0-9]"))
    }
    do {
      let asked =
        request.body.isEmpty
        ? TopicRequest() : try WireCoding.decode(TopicRequest.self, from: request.body)
      let behaviour = try TopicBehaviour(asked)
      topics.setBehaviour(behaviour, of: topic)
      return .json(200, behaviour.request)
    } catch {
      return .json(400, ControlError(error: "\(error)"))
    }
  }

  /// One JSON object a line, as ntfy's JSON stream and poll answer.
  private static func lines(_ messages: [NtfyMessage]) -> HTTPResponse {
    HTTPResponse(
      status: 200, headers: [("Content-Type", "application/x-ndjson; charset=utf-8")],
      body: messages.flatMap { WireCoding.encode($0) + [UInt8(ascii: "\n")] })
  }
}
