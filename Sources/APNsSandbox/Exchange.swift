import Foundation
import Infrastructure
import SandboxHTTP2

/// One push and what the sandbox decided to do with it.
struct Exchange {
  /// How the answer leaves, or does not.
  enum Delivery: Equatable {
    case answer
    case answerThenGoaway
    case goawayInstead
    case drop
  }

  let request: PushRequest
  let checked: CheckedPush
  let answer: Answer
  /// The `apns-id` of the answer: the request's, or a new UUID when it had none (as APNs).
  let apnsID: String
  let delivery: Delivery
  let delayMilliseconds: Int
  /// The behaviour applied, as written; nil for a normal answer.
  let behaviour: String?

  /// The answer as the server sends it.
  var response: HTTPResponse {
    let body = answer.body
    var headers = [("apns-id", apnsID)]
    if !body.isEmpty { headers.append(("content-type", "application/json")) }
    return HTTPResponse(status: answer.status, headers: headers, body: body)
  }
}

/// Decides each push: the checks first (a bad request always gets its own error, at
/// once), then the token's behaviour, if any.
final class PushHandler {
  private let check: PushCheck
  private let behaviours: BehaviourTable
  private let recorder: Recorder?

  init(check: PushCheck, behaviours: BehaviourTable, recorder: Recorder?) {
    self.check = check
    self.behaviours = behaviours
    self.recorder = recorder
  }

  /// The HTTP/2 server's handler: each push decided, and recorded once it has ended.
  func reply(to request: HTTP2Request) -> HTTP2Reply {
    let exchange = decide(PushRequest(request), now: Date())
    let recorder = recorder
    let ended: (HTTP2Outcome) -> Void = { outcome in
      recorder?.record(
        exchange, outcome: outcome, connection: request.connection, stream: request.stream)
    }
    switch exchange.delivery {
    case .drop: return HTTP2Reply(.drop, ended: ended)
    case .goawayInstead: return HTTP2Reply(.refuseWithGoaway, ended: ended)
    case .answer, .answerThenGoaway:
      return HTTP2Reply(
        .respond(
          exchange.response, after: .milliseconds(exchange.delayMilliseconds),
          thenGoaway: exchange.delivery == .answerThenGoaway),
        ended: ended)
    }
  }

  func decide(_ request: PushRequest, now: Date) -> Exchange {
    let checked = check.check(request, now: now)
    let given = request.headers["apns-id"].flatMap { UUID(uuidString: $0) == nil ? nil : $0 }
    let apnsID = given ?? UUID().uuidString.lowercased()
    let accepted = Exchange(
      request: request, checked: checked, answer: checked.rejection ?? .accepted,
      apnsID: apnsID, delivery: .answer, delayMilliseconds: 0, behaviour: nil)
    guard checked.rejection == nil, let token = checked.token,
      let behaviour = behaviours.take(for: token)
    else { return accepted }

    var answer = Answer.accepted
    var delivery = Exchange.Delivery.answer
    var delay = 0
    switch behaviour.action {
    case .answer(let given):
      answer = given
      // APNs always says when it learned of the invalid token; "now" unless one was set.
      if answer.status == 410, answer.timestamp == nil {
        answer.timestamp = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
      }
    case .slow(let milliseconds): delay = milliseconds
    case .goawayAfterAnswer: delivery = .answerThenGoaway
    case .goawayInstead: delivery = .goawayInstead
    case .drop: delivery = .drop
    }
    return Exchange(
      request: request, checked: checked, answer: answer, apnsID: apnsID, delivery: delivery,
      delayMilliseconds: delay, behaviour: behaviour.spec)
  }
}
