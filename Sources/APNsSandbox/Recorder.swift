import Events
import Foundation
import Infrastructure
import SandboxHTTP2

/// Appends one JSON line per push to the `--record` file, so that tests and the local stack
/// can see what reached "Apple" (one `write(2)` per line: see `JSONLinesFile`).
final class Recorder {
  private let file: JSONLinesFile

  init(path: String) throws(SandboxError) {
    do {
      file = try JSONLinesFile(path: path)
    } catch {
      throw SandboxError(.unreadableFile(path: path), detail: error.reason)
    }
  }

  func record(_ exchange: Exchange, outcome: HTTP2Outcome, connection: Int, stream: Int32) {
    file.append(
      RecordLine(exchange, outcome: outcome, connection: connection, stream: stream, time: Date()))
  }
}

/// One record line (its keys documented in `--help`). Every key on every line, `null` when
/// it does not apply, so readers need no guesswork.
struct RecordLine: Encodable {
  /// What the provider token's header and claims said, as far as they were readable; never
  /// the signature.
  struct JWT: Encodable {
    let alg: String?
    let kid: String?
    let iss: String?
    let iat: Int64?

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(alg, forKey: .alg)
      try container.encode(kid, forKey: .kid)
      try container.encode(iss, forKey: .iss)
      try container.encode(iat, forKey: .iat)
    }

    enum CodingKeys: String, CodingKey { case alg, kid, iss, iat }
  }

  let time: String
  let connection: Int
  let stream: Int
  let method: String?
  let path: String?
  let token: String?
  let headers: [String: String]
  let jwt: JWT?
  let payload: JSONValue?
  let payloadBytes: Int
  let status: Int?
  let reason: String?
  let timestamp: Int64?
  let apnsID: String
  let behaviour: String?
  let outcome: String

  init(
    _ exchange: Exchange, outcome: HTTP2Outcome, connection: Int, stream: Int32, time: Date
  ) {
    let request = exchange.request
    var headers: [String: String] = [:]
    for name in PushRequest.headersOfInterest where name != "authorization" {
      if let value = request.headers[name] { headers[name] = value }
    }
    // Status and reason only for what the client was actually told.
    let told = outcome == .answered
    self.time = Timestamp.format(time)
    self.connection = connection
    self.stream = Int(stream)
    method = request.method
    path = request.path
    token = exchange.checked.token
    self.headers = headers
    jwt = exchange.checked.claims.map {
      JWT(alg: $0.algorithm, kid: $0.keyID, iss: $0.issuer, iat: $0.issuedAt)
    }
    payload = exchange.checked.payload
    payloadBytes = request.bodyLength
    status = told ? exchange.answer.status : nil
    reason = told ? exchange.answer.reason : nil
    timestamp = told ? exchange.answer.timestamp : nil
    apnsID = exchange.apnsID
    behaviour = exchange.behaviour
    self.outcome = outcome.rawValue
  }

  enum CodingKeys: String, CodingKey {
    case time, connection, stream, method, path, token, headers, jwt, payload
    case payloadBytes = "payload_bytes"
    case status, reason, timestamp
    case apnsID = "apns_id"
    case behaviour, outcome
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(time, forKey: .time)
    try container.encode(connection, forKey: .connection)
    try container.encode(stream, forKey: .stream)
    try container.encode(method, forKey: .method)
    try container.encode(path, forKey: .path)
    try container.encode(token, forKey: .token)
    try container.encode(headers, forKey: .headers)
    try container.encode(jwt, forKey: .jwt)
    try container.encode(payload, forKey: .payload)
    try container.encode(payloadBytes, forKey: .payloadBytes)
    try container.encode(status, forKey: .status)
    try container.encode(reason, forKey: .reason)
    try container.encode(timestamp, forKey: .timestamp)
    try container.encode(apnsID, forKey: .apnsID)
    try container.encode(behaviour, forKey: .behaviour)
    try container.encode(outcome, forKey: .outcome)
  }
}
