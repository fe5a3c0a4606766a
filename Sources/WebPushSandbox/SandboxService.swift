import Foundation
import Infrastructure
import Synchronization

/// The sandbox as a `Service`: an HTTPS server on libmicrohttpd with two routes, the
/// subscriptions in memory, and the record file.
struct SandboxService: Service {
  let options: SandboxOptions
  let logger: Logger
  private let tls: HTTPServer.TLSIdentity
  private let recorder: JSONLinesFile?

  init(options: SandboxOptions, logger: Logger) throws {
    self.options = options
    self.logger = logger
    tls = HTTPServer.TLSIdentity(
      certificateChainPEM: try Self.read(options.certificatePath),
      privateKeyPEM: try Self.read(options.privateKeyPath))
    recorder = try options.recordPath.map { path throws(JSONLinesFile.CannotOpen) in
      try JSONLinesFile(path: path)
    }
  }

  struct Unreadable: Error, CustomStringConvertible {
    let path: String
    var description: String { "cannot read \(path)" }
  }

  private static func read(_ path: String) throws(Unreadable) -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw Unreadable(path: path)
    }
    return String(decoding: data, as: UTF8.self)
  }

  func run() async throws {
    let state = SandboxState(endpointHost: options.endpointHost)
    let server = try HTTPServer.start(
      listen: options.listen, router: Self.router(state: state, recorder: recorder, logger: logger),
      logger: logger, metrics: Metrics(),
      // Bodies up to 64 KiB reach the checks, so that a push over 4096 bytes is answered
      // 413 and recorded; larger ones get the server's own 413.
      options: HTTPServer.Options(threads: 2, maxBodyBytes: 64 * 1024, tls: tls))
    state.port.store(server.port)
    logger.info("serving", ["origin": state.origin ?? ""])
    await server.run()
  }

  static func router(state: SandboxState, recorder: JSONLinesFile?, logger: Logger) -> HTTPRouter {
    var router = HTTPRouter()
    router.add("POST", "/subscriptions") { request in
      state.port.whenKnown { .now(subscribe(request, state: state, logger: logger)) }
    }
    router.add("POST", "/push/{id}") { request in
      state.port.whenKnown { push(request, state: state, recorder: recorder, logger: logger) }
    }
    return router
  }

  private static func push(
    _ request: HTTPRequest, state: SandboxState, recorder: JSONLinesFile?, logger: Logger
  ) -> HTTPReply {
    guard let origin = state.origin else { return .now(.plain(503)) }
    let id = String(request.parameters[0])
    let subscription = state.subscriptions[id]
    let delay = subscription?.behaviour.delayMilliseconds ?? 0
    let answer = { @Sendable () -> HTTPResponse in
      let outcome = PushCheck(origin: origin).check(
        request, id: id, subscription: subscription, now: Date())
      recorder?.append(outcome.line)
      logger.debug("push", ["status": outcome.line.status, "error": outcome.line.error ?? ""])
      return outcome.response
    }
    guard delay > 0 else { return .now(answer()) }
    return .later {
      try? await Task.sleep(for: .milliseconds(delay))
      return answer()
    }
  }

  private static func subscribe(_ request: HTTPRequest, state: SandboxState, logger: Logger)
    -> HTTPResponse
  {
    guard let origin = state.origin else { return .plain(503) }
    let behaviour: Behaviour
    do {
      let asked =
        request.body.isEmpty
        ? SubscriptionRequest()
        : try WireCoding.decode(SubscriptionRequest.self, from: request.body)
      behaviour = try Behaviour(asked)
    } catch {
      return .json(400, ErrorBody(error: "\(error)"))
    }
    let subscription: Subscription
    do {
      subscription = try Subscription(behaviour: behaviour)
    } catch {
      logger.error("cannot make a key pair", ["error": error.description])
      return .plain(500)
    }
    state.subscriptions.add(subscription)
    return .json(
      201,
      SubscriptionJSON(
        endpoint: "\(origin)/push/\(subscription.id)",
        keys: SubscriptionJSON.Keys(
          p256dh: Base64URL.encode(subscription.keyPair.publicKeyUncompressed),
          auth: Base64URL.encode(subscription.authSecret))))
  }
}

/// What the routes share: the subscriptions, and the port once the server has one.
final class SandboxState: Sendable {
  let endpointHost: String
  let subscriptions = SubscriptionStore()
  let port = BoundPort()

  init(endpointHost: String) { self.endpointHost = endpointHost }

  /// `https://<endpoint host>:<port>` as VAPID's `aud` names it; nil before the start.
  var origin: String? {
    guard let port = port.value else { return nil }
    return VAPIDAuthorization.audience(ofEndpoint: "https://\(endpointHost):\(port)")
  }
}
