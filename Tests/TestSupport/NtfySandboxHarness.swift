import Foundation
import Infrastructure

/// The ntfy sandbox as a process, with the test PKI: the installation's ntfy server for the
/// ntfy tests. Topics are programmed and read over HTTPS, as a phone would read them.
public struct NtfySandboxHarness: Sendable {
  public let process: WorkerProcess
  public let port: Int
  public let pki: URL
  public let record: URL
  /// The access token publishes and polls must carry; nil: the server is open.
  public let token: String?
  private let client: HTTPClient

  public struct ControlFailed: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
  }

  /// Starts the sandbox on a free port of 127.0.0.1, recording to `record`, requiring
  /// `token` when one is given.
  public static func start(
    environment: [String: String] = ProcessInfo.processInfo.environment, record: URL,
    token: String? = nil
  ) async throws -> NtfySandboxHarness {
    let pki = try APNsSandboxHarness.pki()
    var arguments = [
      "--listen", "127.0.0.1:0", "--cert", pki.appendingPathComponent("server.pem").path,
      "--key", pki.appendingPathComponent("server.key").path, "--record", record.path,
    ]
    if let token { arguments += ["--token", token] }
    let process = try WorkerProcess("NtfySandbox", arguments: arguments, environment: environment)
    let port = try await listeningPort(of: process)
    return NtfySandboxHarness(
      process: process, port: port, pki: pki, record: record, token: token,
      client: HTTPClient(
        caFile: pki.appendingPathComponent("ca.pem").path, threadName: "ntfy-harness"))
  }

  /// The test CA, for the clients that reach the sandbox.
  public var caFile: String { pki.appendingPathComponent("ca.pem").path }
  /// `MOWDECK_NOTIFICATIONS_NTFY_URL` for this sandbox.
  public var url: String { "https://localhost:\(port)" }

  /// The settings that point an ntfy worker at this sandbox (with its token, if any).
  public var workerEnvironment: [String: String] {
    var environment = [
      "MOWDECK_NOTIFICATIONS_NTFY_URL": url, "MOWDECK_NOTIFICATIONS_NTFY_CA_FILE": caFile,
    ]
    environment["MOWDECK_NOTIFICATIONS_NTFY_TOKEN"] = token
    return environment
  }

  /// How `topic`'s valid publishes are answered from now on: `answer` (200 unless given),
  /// `Retry-After: retryAfter` with 429 and 5xx, each answer held `delayMs`.
  public func program(
    topic: String, answer: Int? = nil, retryAfter: Int? = nil, delayMs: Int? = nil
  ) async throws {
    struct Request: Encodable {
      var answer: Int?
      var retryAfter: Int?
      var delayMs: Int?
      enum CodingKeys: String, CodingKey {
        case answer
        case retryAfter = "retry_after"
        case delayMs = "delay_ms"
      }
    }
    let result = await post(
      "/sandbox/topics/\(topic)", headers: [("Content-Type", "application/json")],
      body: WireCoding.encode(Request(answer: answer, retryAfter: retryAfter, delayMs: delayMs)))
    guard case .response(200, _, _) = result else {
      throw ControlFailed(description: "POST /sandbox/topics/\(topic) answered \(result)")
    }
  }

  /// POSTs `body` to the sandbox at `path` (a publish is `/<topic>`); its answer, raw.
  public func post(_ path: String, headers: [(String, String)] = [], body: [UInt8]) async
    -> HTTPClientResult
  {
    await client.send(
      HTTPClientRequest(url: "\(url)\(path)", headers: headers, body: body, timeoutSeconds: 10))
  }

  /// `GET /<topic>/json?poll=1` with the sandbox's token: every message kept, in order.
  public func poll(_ topic: String) async throws -> [NtfyMessageJSON] {
    let (status, body) = try await get("/\(topic)/json?poll=1", token: token)
    guard status == 200 else { throw ControlFailed(description: "poll answered \(status)") }
    return try Self.messages(body)
  }

  /// What a subscribed phone shows of `topic`: each message replaced in place by the latest
  /// of its sequence.
  public func view(_ topic: String) async throws -> [NtfyMessageJSON] {
    let (status, body) = try await get("/sandbox/topics/\(topic)/view", token: nil)
    guard status == 200 else { throw ControlFailed(description: "view answered \(status)") }
    return try Self.messages(body)
  }

  /// A GET with curl (the shared client only posts): the status and the body.
  public func get(_ path: String, token: String?) async throws -> (status: Int, body: String) {
    let authorization = token.map { "-H 'Authorization: Bearer \($0)' " } ?? ""
    let output = try await runShellOffThePool(
      "curl -sS --cacert '\(caFile)' \(authorization)-w '\\n%{http_code}' '\(url)\(path)'")
    var lines = output.split(separator: "\n", omittingEmptySubsequences: false)
    let status = Int(lines.removeLast()) ?? 0
    return (status, lines.joined(separator: "\n"))
  }

  private static func messages(_ body: String) throws -> [NtfyMessageJSON] {
    try body.split(separator: "\n").map {
      try WireCoding.decode(NtfyMessageJSON.self, from: Array($0.utf8))
    }
  }

  /// The publishes recorded so far, and a wait for those of other processes.
  public var records: RecordFile<NtfyRecordLine> { RecordFile(record) }

  /// Stops the process and the harness's client.
  public func stop() {
    process.stop()
    client.shutdown()
  }
}
