import Foundation
import Infrastructure

/// The FCM sandbox as a process, with the test PKI and a service account of its own: FCM's
/// HTTP v1 API and Google's token endpoint for the OAuth and FCM tests. Registration
/// tokens and the token endpoint's behaviour are set over HTTPS, as the tests' clients
/// reach the rest.
public struct FCMSandboxHarness: Sendable {
  public static let projectID = "mowdeck-test"
  public static let clientEmail = "fcm-sender@mowdeck-test.iam.gserviceaccount.com"

  public let process: WorkerProcess
  public let port: Int
  public let pki: URL
  public let record: URL
  /// The host named in the token URL.
  public let host: String
  /// A service-account file for this sandbox (mode 0600), as the Firebase console gives it.
  public let credentials: URL
  private let client: HTTPClient

  /// Starts the sandbox on a free port of 127.0.0.1, recording to `record`, trusting the
  /// public half of `serviceAccountKey()`.
  public static func start(
    environment: [String: String] = ProcessInfo.processInfo.environment, record: URL,
    tokenLifetime: Int? = nil, acceptAnyToken: Bool = false, host: String = "localhost"
  ) async throws -> FCMSandboxHarness {
    let pki = try APNsSandboxHarness.pki()
    let key = try serviceAccountKey()
    let files = FileManager.default.temporaryDirectory
      .appendingPathComponent("fcm-sandbox-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
    let publicKey = files.appendingPathComponent("service-account.pub.pem")
    try key.publicKeyPEM.write(to: publicKey, atomically: true, encoding: .utf8)
    var arguments = [
      "--listen", "127.0.0.1:0", "--cert", pki.appendingPathComponent("server.pem").path,
      "--key", pki.appendingPathComponent("server.key").path, "--record", record.path,
      "--public-key", publicKey.path, "--client-email", clientEmail, "--project-id", projectID,
      "--host", host,
    ]
    if let tokenLifetime { arguments += ["--token-lifetime", String(tokenLifetime)] }
    if acceptAnyToken { arguments.append("--accept-any-token") }
    let process = try WorkerProcess("FCMSandbox", arguments: arguments, environment: environment)
    let port = try await listeningPort(of: process)
    let credentials = files.appendingPathComponent("service-account.json")
    try writeServiceAccount(
      serviceAccountJSON(
        privateKeyPEM: key.privateKeyPEM, tokenURI: "https://\(host):\(port)/token"),
      to: credentials)
    return FCMSandboxHarness(
      process: process, port: port, pki: pki, record: record, host: host,
      credentials: credentials,
      client: HTTPClient(
        caFile: pki.appendingPathComponent("ca.pem").path, threadName: "fcm-harness"))
  }

  /// The test CA, for the clients that reach the sandbox.
  public var caFile: String { pki.appendingPathComponent("ca.pem").path }
  /// The service account's `token_uri`: what assertions' `aud` must be.
  public var tokenURL: String { "https://\(host):\(port)/token" }
  /// `MOWDECK_NOTIFICATIONS_FCM_URL` for this sandbox.
  public var fcmURL: String { "https://\(host):\(port)" }
  /// The send route of the test project.
  public var sendURL: String { "\(fcmURL)/v1/projects/\(Self.projectID)/messages:send" }

  /// The settings that point an FCM worker at this sandbox.
  public var workerEnvironment: [String: String] {
    [
      "MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH": credentials.path,
      "MOWDECK_NOTIFICATIONS_FCM_URL": fcmURL,
      "MOWDECK_NOTIFICATIONS_FCM_CA_FILE": caFile,
    ]
  }

  /// The service account of this sandbox, read as a worker reads it.
  public func serviceAccount() throws -> ServiceAccount {
    try ServiceAccount.load(path: credentials.path)
  }

  public struct ControlFailed: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
  }

  /// Makes a registration token whose valid messages are answered `answer` ("OK" unless
  /// given, or an FCM error code), with `Retry-After: retryAfter` where it applies.
  public func makeToken(answer: String? = nil, retryAfter: Int? = nil, delayMs: Int? = nil)
    async throws -> String
  {
    struct Request: Encodable {
      var answer: String?
      var retryAfter: Int?
      var delayMs: Int?
      enum CodingKeys: String, CodingKey {
        case answer
        case retryAfter = "retry_after"
        case delayMs = "delay_ms"
      }
    }
    struct Answer: Decodable { var token: String }
    let body = try await control(
      "/tokens", Request(answer: answer, retryAfter: retryAfter, delayMs: delayMs), expect: 201)
    return try WireCoding.decode(Answer.self, from: body).token
  }

  /// How the token endpoint answers valid assertions from now on: `answer` "OK",
  /// "INVALID_GRANT" or "UNAVAILABLE"; `expiresIn` of the tokens it grants; a delay.
  public func setTokenEndpoint(answer: String? = nil, expiresIn: Int? = nil, delayMs: Int? = nil)
    async throws
  {
    struct Request: Encodable {
      var answer: String?
      var expiresIn: Int?
      var delayMs: Int?
      enum CodingKeys: String, CodingKey {
        case answer
        case expiresIn = "expires_in"
        case delayMs = "delay_ms"
      }
    }
    _ = try await control(
      "/token-endpoint", Request(answer: answer, expiresIn: expiresIn, delayMs: delayMs),
      expect: 200)
  }

  /// Makes every access token granted so far expire now; how many were valid.
  @discardableResult
  public func expireAccessTokens() async throws -> Int {
    struct Answer: Decodable { var expired: Int }
    let body = try await control("/access-tokens/expire", [String: String](), expect: 200)
    return try WireCoding.decode(Answer.self, from: body).expired
  }

  /// POSTs `body` to the sandbox at `path`; its answer, or what came back, raw.
  public func post(_ path: String, headers: [(String, String)] = [], body: [UInt8]) async
    -> HTTPClientResult
  {
    await client.send(
      HTTPClientRequest(
        url: "\(fcmURL)\(path)", headers: headers, body: body, timeoutSeconds: 10))
  }

  private func control(_ path: String, _ request: some Encodable, expect: Int) async throws
    -> [UInt8]
  {
    let result = await post(
      path, headers: [("Content-Type", "application/json")], body: WireCoding.encode(request))
    guard case .response(let status, _, let body) = result else {
      throw ControlFailed(description: "no answer to POST \(path): \(result)")
    }
    guard status == expect else {
      throw ControlFailed(
        description: "POST \(path) answered \(status): " + String(decoding: body, as: UTF8.self))
    }
    return body
  }

  /// Every line recorded so far.
  public func recordLines() throws -> [FCMRecordLine] {
    guard let data = FileManager.default.contents(atPath: record.path) else { return [] }
    return try data.split(separator: UInt8(ascii: "\n")).map {
      try WireCoding.decode(FCMRecordLine.self, from: Array($0))
    }
  }

  /// The access tokens granted so far, in order.
  public func grants() throws -> [FCMRecordLine] {
    try recordLines().filter { $0.route == "token" && $0.status == 200 }
  }

  /// Stops the process and the harness's client.
  public func stop() {
    process.stop()
    client.shutdown()
  }
}
