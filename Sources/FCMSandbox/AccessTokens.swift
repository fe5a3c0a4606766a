import Foundation
import Infrastructure
import Synchronization

/// The access tokens granted since start: what the send route checks a bearer against.
final class AccessTokens: Sendable {
  /// The scopes that let a token send messages.
  static let sendingScopes: Set<Substring> = [
    "https://www.googleapis.com/auth/firebase.messaging",
    "https://www.googleapis.com/auth/cloud-platform",
  ]

  private struct Granted {
    var expiresAt: Date
    var maySend: Bool
  }

  enum Verdict: Equatable {
    case valid
    case unknown
    case expired
    /// Granted without a scope that allows sending.
    case insufficientScope
  }

  private let tokens = Mutex<[String: Granted]>([:])

  /// A new token for `scope`, valid `lifetime` seconds from `now`.
  func grant(scope: String, lifetime: Int, now: Date) -> String {
    let token = "ya29.sandbox-" + Base64URL.encode(randomBytes(32))
    let maySend = scope.split(separator: " ").contains { Self.sendingScopes.contains($0) }
    tokens.withLock {
      $0[token] = Granted(
        expiresAt: now.addingTimeInterval(TimeInterval(lifetime)), maySend: maySend)
    }
    return token
  }

  /// Makes every token granted so far expire at `now`; how many were still valid.
  func expireAll(now: Date) -> Int {
    tokens.withLock { tokens in
      var count = 0
      for (token, granted) in tokens where granted.expiresAt > now {
        tokens[token]?.expiresAt = now
        count += 1
      }
      return count
    }
  }

  func verdict(on token: String, now: Date) -> Verdict {
    guard let granted = tokens.withLock({ $0[token] }) else { return .unknown }
    guard granted.expiresAt > now else { return .expired }
    return granted.maySend ? .valid : .insufficientScope
  }
}

/// How the token endpoint answers valid assertions (`POST /token-endpoint`).
struct GrantBehaviour: Sendable, Equatable {
  enum Answer: String, CaseIterable, Sendable {
    case ok = "OK"
    /// 400 invalid_grant: the key was deleted or the account disabled.
    case invalidGrant = "INVALID_GRANT"
    /// 503: Google's endpoint is down.
    case unavailable = "UNAVAILABLE"
  }

  var answer = Answer.ok
  var expiresIn: Int
  var delayMilliseconds = 0

  struct Invalid: Error, CustomStringConvertible {
    let description: String
  }

  init(expiresIn: Int) { self.expiresIn = expiresIn }

  /// These settings changed by what `request` names.
  func updated(by request: GrantRequest) throws(Invalid) -> GrantBehaviour {
    var next = self
    if let text = request.answer {
      guard let answer = Answer(rawValue: text) else {
        throw Invalid(
          description: "answer must be one of \(Answer.allCases.map(\.rawValue)), not \(text)")
      }
      next.answer = answer
    }
    if let seconds = request.expiresIn {
      guard (1...3600).contains(seconds) else {
        throw Invalid(description: "expires_in must be from 1 to 3600, got \(seconds)")
      }
      next.expiresIn = seconds
    }
    if let delay = request.delayMs {
      guard (0...60_000).contains(delay) else {
        throw Invalid(description: "delay_ms must be from 0 to 60000, got \(delay)")
      }
      next.delayMilliseconds = delay
    }
    return next
  }

  var request: GrantRequest {
    GrantRequest(answer: answer.rawValue, expiresIn: expiresIn, delayMs: delayMilliseconds)
  }
}
