import Foundation
import Infrastructure
import SandboxHTTP2
import Synchronization

/// The sandbox as a `Service`: the token endpoint, the send route and the controls served
/// over HTTP/2 (TLS, ALPN h2), as FCM's API is, so that a client's many sends are seen as
/// streams of one connection; the tokens in memory; the record file.
struct SandboxService: Service {
  let options: SandboxOptions
  let logger: Logger
  private let settings: HTTP2Server.Settings
  private let publicKey: RS256VerifyingKey
  private let recorder: JSONLinesFile?

  init(options: SandboxOptions, logger: Logger) throws {
    self.options = options
    self.logger = logger
    settings = try HTTP2Server.Settings(
      listen: options.listen, certificatePath: options.certificatePath,
      privateKeyPath: options.privateKeyPath, maxBodyBytes: 64 * 1024)
    publicKey = try RS256VerifyingKey(pem: TextFile.read(options.publicKeyPath))
    recorder = try options.recordPath.map { path throws(JSONLinesFile.CannotOpen) in
      try JSONLinesFile(path: path)
    }
  }

  func run() async throws {
    let state = SandboxState(options: options, publicKey: publicKey, recorder: recorder)
    var router = HTTPRouter()
    state.addRoutes(to: &router, logger: logger)
    let logger = logger
    try await HTTP2Server.run(settings, logger: logger) { [router] port in
      state.port.store(Int(port))
      logger.info(
        "listening",
        [
          "port": Int(port), "project_id": state.options.projectID,
          "token_url": state.tokenURL ?? "",
        ])
      return router.http2Handler
    }
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
