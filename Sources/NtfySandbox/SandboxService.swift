import Foundation
import Infrastructure

/// The sandbox as a `Service`: an HTTPS server on libmicrohttpd with ntfy's publish and poll
/// routes and the controls; the topics in memory; the record file.
struct SandboxService: Service {
  let options: SandboxOptions
  let logger: Logger
  private let tls: HTTPServer.TLSIdentity
  private let recorder: JSONLinesFile?

  init(options: SandboxOptions, logger: Logger) throws {
    self.options = options
    self.logger = logger
    tls = try HTTPServer.TLSIdentity(
      certificateFile: options.certificatePath, privateKeyFile: options.privateKeyPath)
    recorder = try options.recordPath.map { path throws(JSONLinesFile.CannotOpen) in
      try JSONLinesFile(path: path)
    }
  }

  func run() async throws {
    let state = SandboxState(token: options.token, recorder: recorder)
    var router = HTTPRouter()
    state.addRoutes(to: &router, logger: logger)
    let server = try HTTPServer.start(
      listen: options.listen, router: router, logger: logger, metrics: Metrics(),
      // Bodies up to 64 KiB reach the checks, so that a message over 4096 bytes is answered
      // as ntfy answers it and recorded; larger ones get the server's own 413.
      options: HTTPServer.Options(threads: 2, maxBodyBytes: 64 * 1024, tls: tls))
    logger.info("serving", ["auth": options.token != nil])
    await server.run()
  }
}

/// What the routes share: the topics, the token and the record file.
final class SandboxState: Sendable {
  let token: String?
  let recorder: JSONLinesFile?
  let topics = Topics()

  init(token: String?, recorder: JSONLinesFile?) {
    self.token = token
    self.recorder = recorder
  }
}
