import Events
import Foundation
import Infrastructure

/// Appends one JSON line per push to the `--record` file, so that tests and the local stack
/// can see what reached "Apple". Each line is one `write(2)` on a file opened with
/// `O_APPEND`: a reader never sees half a line, and nothing is lost if the sandbox is
/// killed (there is no buffer to flush).
final class Recorder {
  private let descriptor: Int32

  init(path: String) throws(SandboxError) {
    descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw SandboxError(.unreadableFile(path: path), detail: SandboxError.systemError("open"))
    }
  }

  deinit { close(descriptor) }

  func record(_ exchange: Exchange, outcome: Exchange.Outcome, connection: Int, stream: Int32) {
    var line = JSON.encode(
      Self.line(exchange, outcome: outcome, connection: connection, stream: stream, time: Date()))
    line.append("\n")
    let bytes = Array(line.utf8)
    var written = 0
    while written < bytes.count {
      let result = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress! + written, $0.count - written)
      }
      if result < 0, errno == EINTR { continue }
      guard result > 0 else { return }
      written += result
    }
  }

  /// The keys of one record line (documented in `--help`).
  static func line(
    _ exchange: Exchange, outcome: Exchange.Outcome, connection: Int, stream: Int32, time: Date
  ) -> [String: Any] {
    let request = exchange.request
    var headers: [String: Any] = [:]
    for name in PushRequest.headersOfInterest where name != "authorization" {
      if let value = request.headers[name] { headers[name] = value }
    }
    // Every key on every line, null when it does not apply, so readers need no guesswork.
    func orNull(_ value: Any?) -> Any { value ?? JSON.null }
    // Status and reason only for what the client was actually told.
    let told = outcome == .answered
    let jwt = exchange.checked.claims.map { claims -> Any in
      [
        "alg": orNull(claims.algorithm), "kid": orNull(claims.keyID),
        "iss": orNull(claims.issuer), "iat": orNull(claims.issuedAt),
      ] as [String: Any]
    }
    let line: [String: Any] = [
      "time": Timestamp.format(time),
      "connection": connection,
      "stream": Int(stream),
      "method": orNull(request.method),
      "path": orNull(request.path),
      "token": orNull(exchange.checked.token),
      "headers": headers,
      "jwt": orNull(jwt),
      "payload": orNull(exchange.checked.payload),
      "payload_bytes": request.bodyLength,
      "status": orNull(told ? exchange.answer.status : nil),
      "reason": orNull(told ? exchange.answer.reason : nil),
      "timestamp": orNull(told ? exchange.answer.timestamp : nil),
      "apns_id": exchange.apnsID,
      "behaviour": orNull(exchange.behaviour),
      "outcome": outcome.rawValue,
    ]
    return line
  }
}
