import Synchronization

/// How a topic's valid publishes are answered.
struct TopicBehaviour: Sendable, Equatable {
  static let statuses: Set<Int> = [200, 401, 403, 413, 429, 500, 502, 503]

  var status = 200
  /// Seconds for `Retry-After` (429 and 5xx only).
  var retryAfter: Int?
  /// Each answer waits this long; the publish is kept and recorded when it is answered.
  var delayMilliseconds = 0

  struct Invalid: Error, CustomStringConvertible {
    let description: String
  }

  init() {}

  init(_ request: TopicRequest) throws(Invalid) {
    if let answer = request.answer {
      guard Self.statuses.contains(answer) else {
        throw Invalid(description: "answer must be one of \(Self.statuses.sorted()), not \(answer)")
      }
      status = answer
    }
    if let seconds = request.retryAfter {
      guard status == 429 || status >= 500 else {
        throw Invalid(description: "retry_after goes only with answer 429, 500, 502 or 503")
      }
      guard seconds >= 0 else {
        throw Invalid(description: "retry_after must not be negative, got \(seconds)")
      }
      retryAfter = seconds
    }
    if let delay = request.delayMs {
      guard (0...60_000).contains(delay) else {
        throw Invalid(description: "delay_ms must be from 0 to 60000, got \(delay)")
      }
      delayMilliseconds = delay
    }
  }

  var request: TopicRequest {
    TopicRequest(answer: status, retryAfter: retryAfter, delayMs: delayMilliseconds)
  }
}

/// The topics published to or programmed since start, read and written from the server's
/// threads: each one's behaviour and its messages in publishing order, as ntfy's cache keeps
/// them (every message of a sequence, the earlier ones too).
final class Topics: Sendable {
  private struct Topic {
    var behaviour = TopicBehaviour()
    var messages: [NtfyMessage] = []
  }

  private let topics = Mutex<[String: Topic]>([:])

  func behaviour(of topic: String) -> TopicBehaviour {
    topics.withLock { $0[topic]?.behaviour ?? TopicBehaviour() }
  }

  func setBehaviour(_ behaviour: TopicBehaviour, of topic: String) {
    topics.withLock { $0[topic, default: Topic()].behaviour = behaviour }
  }

  func keep(_ message: NtfyMessage) {
    topics.withLock { $0[message.topic, default: Topic()].messages.append(message) }
  }

  /// What `GET /TOPIC/json?poll=1` answers: every message kept, in order.
  func poll(_ topic: String) -> [NtfyMessage] {
    topics.withLock { $0[topic]?.messages ?? [] }
  }

  /// What a subscribed client shows: each message replaced in place by the latest one of
  /// its sequence.
  func view(_ topic: String) -> [NtfyMessage] {
    var shown: [NtfyMessage] = []
    var positions: [String: Int] = [:]
    for message in poll(topic) {
      if let position = positions[message.sequence] {
        shown[position] = message
      } else {
        positions[message.sequence] = shown.count
        shown.append(message)
      }
    }
    return shown
  }
}
