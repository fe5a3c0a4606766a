import Events
import FoundationEssentials
import Infrastructure

/// `GET /api/v1/notifications/push-images/<notification_id>?e=&s=`
/// (docs/interfaces.md#the-serving-process-imageserveworker). The URL is the credential: its shape
/// and signature are checked on libmicrohttpd's thread, before anything else; only a genuine,
/// unexpired, admitted request suspends its connection and reads PostgreSQL.
struct PushImageRoute: Sendable {
  static let pattern = "/api/v1/notifications/push-images/{notification}"

  /// Nil without an image key: then every request answers 404.
  let signer: ImageURLSigner?
  let limits: ServeLimits
  let responder: PhotoResponder
  let clock: any WallClock

  func handle(_ request: HTTPRequest) -> HTTPReply {
    guard let signer else { return .now(.plain(404)) }
    let now = clock.now()
    guard let target = PushImageTarget(target: request.target) else {
      return unsigned(.plain(404), from: request.clientAddress, now: now)
    }
    let verdict = signer.verify(
      notificationID: String(target.notificationID), expiry: String(target.expiry),
      signature: String(target.signature), now: now)
    switch verdict {
    case .invalid:
      return unsigned(.plain(404), from: request.clientAddress, now: now)
    case .expired:
      return unsigned(.plain(410), from: request.clientAddress, now: now)
    case .valid(let notification):
      if case .limited(let seconds) = limits.admitGenuine(notification, now: now) {
        return .now(Self.tooManyRequests(retryAfter: seconds))
      }
      let store = responder.store
      return .later {
        await responder.respond(route: "push") {
          try await store.record(notificationID: notification)
        }
      }
    }
  }

  /// An answer decided from the URL alone, unless the client has sent too many of those.
  private func unsigned(_ response: HTTPResponse, from client: ClientAddress, now: Date)
    -> HTTPReply
  {
    if case .limited(let seconds) = limits.admitUnsigned(client, now: now) {
      return .now(Self.tooManyRequests(retryAfter: seconds))
    }
    return .now(response)
  }

  static func tooManyRequests(retryAfter seconds: Int) -> HTTPResponse {
    HTTPResponse.plain(429).adding("Retry-After", String(seconds))
  }
}
