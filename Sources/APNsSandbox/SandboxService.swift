import Events
import Foundation
import Infrastructure
import SandboxHTTP2

/// The sandbox as a `Service`: the HTTP/2 server with the push logic as its handler, until
/// cancellation (SIGTERM, SIGINT).
struct SandboxService: Service {
  let options: SandboxOptions
  let logger: Logger

  func run() async throws {
    let options = options
    let logger = logger
    let settings = HTTP2Server.Settings(
      host: options.host, port: options.port, certificatePath: options.certificatePath,
      privateKeyPath: options.privateKeyPath, maxConcurrentStreams: options.maxConcurrentStreams,
      maxBodyBytes: PushRequest.payloadLimit)
    try await HTTP2Server.run(settings, logger: logger) { port in
      let verifier = ProviderTokenVerifier(
        publicKey: try ES256PublicKey(pemFile: options.publicKeyPath), keyID: options.keyID,
        teamID: options.teamID)
      let behaviours = try BehaviourTable(
        flags: options.behaviours, filePath: options.behaviourFile, logger: logger)
      let recorder = try options.recordPath.map { path throws(SandboxError) in
        try Recorder(path: path)
      }
      let handler = PushHandler(
        check: PushCheck(topic: options.topic, verifier: verifier), behaviours: behaviours,
        recorder: recorder)
      logger.info(
        "listening",
        [
          "host": options.host, "port": Int(port), "topic": options.topic,
          "team_id": options.teamID, "key_id": options.keyID,
          "record": options.recordPath ?? "", "behaviours": options.behaviours.count,
          "behaviour_file": options.behaviourFile ?? "",
        ])
      return handler.reply
    }
  }
}
