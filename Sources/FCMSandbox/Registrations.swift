import Infrastructure
import Synchronization

/// How messages to one registration token are answered.
struct Registration: Sendable, Equatable {
  var answer = FCMAnswer.ok
  /// Seconds for `Retry-After` (QUOTA_EXCEEDED, UNAVAILABLE and INTERNAL only).
  var retryAfter: Int?
  /// Each answer waits this long; the send is recorded when it is answered.
  var delayMilliseconds = 0

  struct Invalid: Error, CustomStringConvertible {
    let description: String
  }

  init(answer: FCMAnswer = .ok) { self.answer = answer }

  init(_ request: RegistrationRequest) throws(Invalid) {
    if let text = request.answer {
      guard let answer = FCMAnswer(rawValue: text) else {
        throw Invalid(
          description: "answer must be one of \(FCMAnswer.allCases.map(\.rawValue)), not \(text)")
      }
      self.answer = answer
    }
    if let seconds = request.retryAfter {
      guard answer.isRetryable else {
        throw Invalid(
          description: "retry_after goes only with QUOTA_EXCEEDED, UNAVAILABLE or INTERNAL")
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
}

/// The registration tokens made since start, read and written from the server's threads.
final class Registrations: Sendable {
  private let tokens = Mutex<[String: Registration]>([:])

  /// A fresh token shaped as FCM's are: an instance id, a colon, `APA91b` and more.
  func add(_ registration: Registration) -> String {
    let token =
      Base64URL.encode(randomBytes(16)) + ":APA91b" + Base64URL.encode(randomBytes(105))
    tokens.withLock { $0[token] = registration }
    return token
  }

  subscript(token: String) -> Registration? {
    tokens.withLock { $0[token] }
  }
}

/// Bytes from the system's cryptographic generator (getrandom(2) on Linux).
func randomBytes(_ count: Int) -> [UInt8] {
  var generator = SystemRandomNumberGenerator()
  return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}
