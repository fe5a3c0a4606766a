import Foundation
import Infrastructure

/// The test doubles' HTTP/2 server: TLS (OpenSSL, ALPN h2 only) and HTTP/2 (nghttp2) on
/// one thread of its own, as the services the doubles stand for (APNs, FCM) speak it. Each
/// complete request goes to a handler on that thread, whose reply may answer at once,
/// later, or not at all (see `HTTP2Reply`).
///
/// Limits of a test double: one thread polls every connection (thousands of requests a
/// second, tens of connections); no handshake or idle timeouts; IPv4 only.
public enum HTTP2Server {
  public struct Settings: Sendable {
    public var host: String
    public var port: UInt16
    /// The server's PEM certificate chain and private key.
    public var certificatePath: String
    public var privateKeyPath: String
    /// The HTTP/2 setting announced to clients.
    public var maxConcurrentStreams: UInt32
    /// Longer request bodies are cut to this plus one byte (`HTTP2Request.bodyTooLarge`).
    public var maxBodyBytes: Int

    public init(
      host: String, port: UInt16, certificatePath: String, privateKeyPath: String,
      maxConcurrentStreams: UInt32 = 1000, maxBodyBytes: Int = 64 * 1024
    ) {
      self.host = host
      self.port = port
      self.certificatePath = certificatePath
      self.privateKeyPath = privateKeyPath
      self.maxConcurrentStreams = maxConcurrentStreams
      self.maxBodyBytes = maxBodyBytes
    }

    /// `listen` is `HOST:PORT` with an IPv4 address or `localhost` (port 0 picks one).
    public init(
      listen: String, certificatePath: String, privateKeyPath: String,
      maxConcurrentStreams: UInt32 = 1000, maxBodyBytes: Int = 64 * 1024
    ) throws(HTTP2ServerError) {
      guard let colon = listen.lastIndex(of: ":"),
        let port = UInt16(listen[listen.index(after: colon)...])
      else { throw HTTP2ServerError(.cannotListen(address: listen), detail: "not HOST:PORT") }
      self.init(
        host: String(listen[..<colon]), port: port, certificatePath: certificatePath,
        privateKeyPath: privateKeyPath, maxConcurrentStreams: maxConcurrentStreams,
        maxBodyBytes: maxBodyBytes)
    }
  }

  /// Serves until a graceful shutdown is requested (SIGTERM, SIGINT) or the task is
  /// cancelled, then closes every connection: a double has no work worth waiting for.
  ///
  /// `makeHandler` runs on the server's thread once the socket is bound, with its port (to
  /// log the `listening` line and name URLs); the handler it makes, and all it owns, stay
  /// on that thread.
  public static func run(
    _ settings: Settings, logger: Logger,
    makeHandler: @escaping @Sendable (_ port: UInt16) throws -> (HTTP2Request) -> HTTP2Reply
  ) async throws {
    let wake = try WakePipe()
    let completions = try Completions()
    let watcher = Task { [shutdown = GracefulShutdown.current] in
      guard let shutdown else { return }
      await shutdown.wait()
      wake.wake()
    }
    defer { watcher.cancel() }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (finished: CheckedContinuation<Void, any Error>) in
        // poll(2) blocks, and must not block the cooperative pool.
        let thread = Thread {
          do {
            let loop = try EventLoop(
              settings: settings, wake: wake, completions: completions, logger: logger,
              makeHandler: makeHandler)
            loop.run()
            finished.resume()
          } catch {
            finished.resume(throwing: error)
          }
        }
        thread.name = "HTTP/2 event loop"
        thread.start()
      }
    } onCancel: {
      wake.wake()
    }
  }
}
