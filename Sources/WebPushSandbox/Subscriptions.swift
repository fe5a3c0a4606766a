import Infrastructure
import Synchronization

/// What valid pushes to a subscription are answered with.
struct Behaviour: Sendable, Equatable {
  static let statuses = Set([201, 404, 410, 413, 429, 500, 503]).union(redirects)
  /// Answers that name another address in `Location`: what a push worker must not follow.
  static let redirects: Set<Int> = [301, 302, 303, 307, 308]

  var status = 201
  /// Seconds for `Retry-After` (429 and 503 only).
  var retryAfter: Int?
  /// The `Location` of a redirect (3xx only).
  var location: String?
  /// The VAPID public key pushes must carry, when the subscription was bound to one.
  var applicationServerKey: [UInt8]?
  /// Each answer waits this long; the push is recorded when it is answered.
  var delayMilliseconds = 0

  struct Invalid: Error, CustomStringConvertible {
    let description: String
  }

  init() {}

  init(_ request: SubscriptionRequest) throws(Invalid) {
    if let answer = request.answer {
      guard Self.statuses.contains(answer) else {
        throw Invalid(
          description: "answer must be one of \(Self.statuses.sorted()), not \(answer)")
      }
      status = answer
    }
    if let seconds = request.retryAfter {
      guard status == 429 || status == 503 else {
        throw Invalid(description: "retry_after goes only with answer 429 or 503")
      }
      guard seconds >= 0 else {
        throw Invalid(description: "retry_after must not be negative, got \(seconds)")
      }
      retryAfter = seconds
    }
    if let location = request.location {
      guard Self.redirects.contains(status) else {
        throw Invalid(description: "location goes only with answer \(Self.redirects.sorted())")
      }
      guard location.hasPrefix("https://") || location.hasPrefix("http://"),
        !location.contains(where: { $0.isNewline })
      else {
        throw Invalid(description: "location must be an http or https URL, got \(location)")
      }
      self.location = location
    } else if Self.redirects.contains(status) {
      throw Invalid(description: "answer \(status) needs a location")
    }
    if let delay = request.delayMs {
      guard (0...60_000).contains(delay) else {
        throw Invalid(description: "delay_ms must be from 0 to 60000, got \(delay)")
      }
      delayMilliseconds = delay
    }
    if let text = request.applicationServerKey {
      guard let key = Base64URL.decode(text), (try? ES256VerifyingKey(uncompressed: key)) != nil
      else {
        throw Invalid(
          description: "application_server_key is not a base64url P-256 uncompressed point")
      }
      applicationServerKey = key
    }
  }
}

/// One subscription as the browser and its push service hold it: the user agent's key pair
/// and auth secret (to decrypt pushes as the browser would), and how to answer.
struct Subscription: Sendable {
  let id: String
  let keyPair: P256KeyPair
  let authSecret: [UInt8]
  let behaviour: Behaviour

  init(behaviour: Behaviour) throws(P256Error) {
    id = Base64URL.encode(randomBytes(32))
    keyPair = try P256KeyPair()
    authSecret = randomBytes(16)
    self.behaviour = behaviour
  }
}

/// The subscriptions made since start, by id; read and written from the server's threads.
final class SubscriptionStore: Sendable {
  private let subscriptions = Mutex<[String: Subscription]>([:])

  func add(_ subscription: Subscription) {
    subscriptions.withLock { $0[subscription.id] = subscription }
  }

  subscript(id: String) -> Subscription? {
    subscriptions.withLock { $0[id] }
  }
}

/// Bytes from the system's cryptographic generator (getrandom(2) on Linux).
func randomBytes(_ count: Int) -> [UInt8] {
  var generator = SystemRandomNumberGenerator()
  return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}
