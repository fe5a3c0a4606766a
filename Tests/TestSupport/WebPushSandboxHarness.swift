import Foundation
import Infrastructure

/// The Web Push sandbox as a process, with the test PKI: a browser's push service for the
/// Web Push tests. Subscriptions are made over HTTPS, as a browser would get one.
public struct WebPushSandboxHarness: Sendable {
  public let process: WorkerProcess
  public let port: Int
  public let pki: URL
  public let record: URL
  /// The host the sandbox names in its endpoints.
  public let endpointHost: String
  private let client: HTTPClient

  /// A subscription as `PushSubscription.toJSON()` gives it.
  public struct Subscription: Codable, Equatable, Sendable {
    public struct Keys: Codable, Equatable, Sendable {
      public var p256dh: String
      public var auth: String
    }

    public var endpoint: String
    public var expirationTime: Int?
    public var keys: Keys

    /// The endpoint's last segment, as record lines name the subscription.
    public var id: String { String(endpoint.split(separator: "/").last ?? "") }
    public var userAgentPublicKey: [UInt8]? { Base64URL.decode(keys.p256dh) }
    public var authSecret: [UInt8]? { Base64URL.decode(keys.auth) }
  }

  /// One line of the record file (see `WebPushSandbox --help`).
  public struct RecordLine: Codable, Equatable, Sendable {
    public var time: Date
    public var subscription: String
    public var status: Int
    public var error: String?
    public var ttl: Int?
    public var urgency: String?
    public var topic: String?
    public var vapidSub: String?
    public var vapidAud: String?
    public var vapidJWT: String?
    public var payload: String?
    public var payloadBytes: Int

    enum CodingKeys: String, CodingKey {
      case time, subscription, status, error, ttl, urgency, topic
      case vapidSub = "vapid_sub"
      case vapidAud = "vapid_aud"
      case vapidJWT = "vapid_jwt"
      case payload
      case payloadBytes = "payload_bytes"
    }
  }

  public struct SubscribeFailed: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
  }

  /// Starts the sandbox on a free port of 127.0.0.1, recording to `record`.
  public static func start(
    environment: [String: String] = ProcessInfo.processInfo.environment, record: URL,
    endpointHost: String = "localhost"
  ) async throws -> WebPushSandboxHarness {
    let pki = try APNsSandboxHarness.pki()
    let process = try WorkerProcess(
      "WebPushSandbox",
      arguments: [
        "--listen", "127.0.0.1:0", "--cert", pki.appendingPathComponent("server.pem").path,
        "--key", pki.appendingPathComponent("server.key").path, "--record", record.path,
        "--endpoint-host", endpointHost,
      ], environment: environment)
    let port = try await listeningPort(of: process)
    return WebPushSandboxHarness(
      process: process, port: port, pki: pki, record: record, endpointHost: endpointHost,
      client: HTTPClient(
        caFile: pki.appendingPathComponent("ca.pem").path, threadName: "webpush-harness"))
  }

  /// The test CA, for the clients that push to the sandbox.
  public var caFile: String { pki.appendingPathComponent("ca.pem").path }

  /// What a WebPushWorker and the serving process need to push to this double: the test
  /// PKI's P-256 key as the VAPID key, a subject, the test CA, and the endpoint host allowed
  /// on the double's port (a port other than 443 is allowed only where the entry names it).
  public var workerEnvironment: [String: String] {
    [
      "MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH": pki.appendingPathComponent("apns-key.p8")
        .path,
      "MOWDECK_NOTIFICATIONS_WEBPUSH_SUBJECT": "mailto:ops@mowdeck.example",
      "MOWDECK_NOTIFICATIONS_WEBPUSH_CA_FILE": caFile,
      "MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS": allowedHost,
    ]
  }

  /// The double's entry for `MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS` and `allowedHosts`:
  /// `<endpoint host>:<port>`.
  public var allowedHost: String { "\(endpointHost):\(port)" }

  /// `https://<endpoint host>:<port>`: the `aud` pushes must carry.
  public var origin: String { "https://\(endpointHost):\(port)" }

  /// Makes a subscription whose valid pushes are answered `answer` (201 unless given), with
  /// `Retry-After: retryAfter` for 429 and 503, and `Location: location` for a redirect.
  public func subscribe(
    answer: Int? = nil, retryAfter: Int? = nil, location: String? = nil,
    applicationServerKey: [UInt8]? = nil, delayMs: Int? = nil
  ) async throws -> Subscription {
    struct Request: Encodable {
      var answer: Int?
      var retryAfter: Int?
      var location: String?
      var applicationServerKey: String?
      var delayMs: Int?

      enum CodingKeys: String, CodingKey {
        case answer
        case retryAfter = "retry_after"
        case location
        case applicationServerKey = "application_server_key"
        case delayMs = "delay_ms"
      }
    }
    let body = WireCoding.encode(
      Request(
        answer: answer, retryAfter: retryAfter, location: location,
        applicationServerKey: applicationServerKey.map { Base64URL.encode($0) },
        delayMs: delayMs))
    let result = await client.send(
      HTTPClientRequest(
        url: "https://127.0.0.1:\(port)/subscriptions",
        headers: [("Content-Type", "application/json")], body: body, timeoutSeconds: 10))
    guard case .response(let status, _, let responseBody) = result else {
      throw SubscribeFailed(description: "no answer to POST /subscriptions: \(result)")
    }
    guard status == 201 else {
      throw SubscribeFailed(
        description: "POST /subscriptions answered \(status): "
          + String(decoding: responseBody, as: UTF8.self))
    }
    return try WireCoding.decode(Subscription.self, from: responseBody)
  }

  /// Every line recorded so far.
  public func recordLines() throws -> [RecordLine] {
    guard let data = FileManager.default.contents(atPath: record.path) else { return [] }
    return try data.split(separator: UInt8(ascii: "\n")).map {
      try WireCoding.decode(RecordLine.self, from: Array($0))
    }
  }

  /// Waits until `count` lines have been recorded (the sandbox records before it answers,
  /// so after an answer its line is there; this is for pushes made by other processes).
  public func waitForRecordLines(_ count: Int, timeout: Duration = .seconds(20)) async throws
    -> [RecordLine]
  {
    var lines: [RecordLine] = []
    try await eventually(timeout: timeout, "\(count) Web Push record lines") {
      lines = try recordLines()
      return lines.count >= count
    }
    return lines
  }

  /// Stops the process and the harness's client.
  public func stop() {
    process.stop()
    client.shutdown()
  }
}
