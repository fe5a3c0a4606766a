import Foundation
import Infrastructure
import Synchronization

/// The sandbox as a `Service`: an HTTPS server on libmicrohttpd with the token endpoint,
/// the send route and the controls; the tokens in memory; the record file.
struct SandboxService: Service {
  let options: SandboxOptions
  let logger: Logger
  private let tls: HTTPServer.TLSIdentity
  private let publicKey: RS256VerifyingKey
  private let recorder: JSONLinesFile?

  init(options: SandboxOptions, logger: Logger) throws {
    self.options = options
    self.logger = logger
    tls = try HTTPServer.TLSIdentity(
      certificateFile: options.certificatePath, privateKeyFile: options.privateKeyPath)
    publicKey = try RS256VerifyingKey(pem: TextFile.read(options.publicKeyPath))
    recorder = try options.recordPath.map { path throws(JSONLinesFile.CannotOpen) in
      try JSONLinesFile(path: path)
    }
  }

  func run() async throws {
    let state = SandboxState(options: options, publicKey: publicKey, recorder: recorder)
    var router = HTTPRouter()
    state.addRoutes(to: &router, logger: logger)
    let server = try HTTPServer.start(
      listen: options.listen, router: router, logger: logger, metrics: Metrics(),
      options: HTTPServer.Options(threads: 2, maxBodyBytes: 64 * 1024, tls: tls))
    state.port.store(server.port)
    logger.info("serving", ["token_url": state.tokenURL ?? ""])
    await server.run()
  }
}

/// What the routes share: the tokens, the token endpoint's settings, the record file and
/// the port once the server has one.
final class SandboxState: Sendable {
  let options: SandboxOptions
  let publicKey: RS256VerifyingKey
  let recorder: JSONLinesFile?
  let accessTokens = AccessTokens()
  let registrations = Registrations()
  let grantBehaviour: Mutex<GrantBehaviour>
  let port = BoundPort()

  init(options: SandboxOptions, publicKey: RS256VerifyingKey, recorder: JSONLinesFile?) {
    self.options = options
    self.publicKey = publicKey
    self.recorder = recorder
    grantBehaviour = Mutex(GrantBehaviour(expiresIn: options.tokenLifetime))
  }

  /// `https://<host>:<port>/token`, the service account's `token_uri`; nil before the start.
  var tokenURL: String? {
    guard let port = port.value else { return nil }
    let host = options.host.contains(":") ? "[\(options.host)]" : options.host
    return "https://\(host):\(port)/token"
  }

  func record(_ line: RecordLine) {
    recorder?.append(line)
  }
}

/// Holds `response` for `milliseconds` before answering (a slow endpoint), else answers
/// at once; `record` runs when the answer goes.
func reply(after milliseconds: Int, _ response: @escaping @Sendable () -> HTTPResponse)
  -> HTTPReply
{
  guard milliseconds > 0 else { return .now(response()) }
  return .later {
    try? await Task.sleep(for: .milliseconds(milliseconds))
    return response()
  }
}
