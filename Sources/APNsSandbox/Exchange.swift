import Foundation

/// One push and what the sandbox decided to do with it.
struct Exchange {
  /// How the answer leaves, or does not.
  enum Delivery: Equatable {
    case answer
    case answerThenGoaway
    case goawayInstead
    case drop
  }

  /// How the exchange ended, for the record file.
  enum Outcome: String {
    /// The answer was sent.
    case answered
    /// The connection was closed without answering (behaviour `drop`).
    case dropped
    /// GOAWAY excluded the stream, which was never answered (behaviour `goaway:instead`).
    case refused
    /// The client reset the stream, or the connection ended, before a slow answer was due.
    case abandoned
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
}

/// Decides each push: the checks first (a bad request always gets its own error, at
/// once), then the token's behaviour, if any.
final class PushHandler {
  private let check: PushCheck
  private let behaviours: BehaviourTable

  init(check: PushCheck, behaviours: BehaviourTable) {
    self.check = check
    self.behaviours = behaviours
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
