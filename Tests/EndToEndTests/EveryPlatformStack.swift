import Events
import Foundation
import Infrastructure
import TestSupport

/// One user (`u-1`, signed in) and one mower (`m-1`, "Robbie"), the pipeline with one process
/// of each worker and every channel worker, and the four push services' doubles; what each
/// double got, read back as the test needs it.
struct EveryPlatformStack {
  let db: TestDatabase
  let session: String
  let base: PipelineProcesses
  let webPush: WebPushSandboxHarness
  let fcm: FCMSandboxHarness
  let ntfy: NtfySandboxHarness
  let environment: [String: String]
  /// The serving process's port; the photo URLs name it, as the owner's public origin would.
  let port: Int
  let processes: [WorkerProcess]
  /// The system's own processes (not the doubles): whose logs must hold no credential.
  let workers: [WorkerProcess]
  private let client: HTTPClient
  /// The ntfy server's access token, which the NtfyWorker must send and never log.
  static let ntfyToken = "tk_e2eNtfyAccessToken0123456789"

  static func start() async throws -> EveryPlatformStack {
    let db = try await TestDatabase.make()
    let directory = Directory(pool: db.pool)
    try await directory.addUser(id: "u-1", name: "Owner")
    try await directory.addMower(id: "m-1", name: "Robbie")
    try await directory.grant(mowerID: "m-1", userID: "u-1")
    let session = try await directory.createSession(userID: "u-1")
    let base = try await PipelineProcesses.start(
      database: db, recordName: "e2e-every", appURL: "https://localhost",
      simulatorArguments: ["--latency-ms", "300-600"])
    let records = FileManager.default.temporaryDirectory.appendingPathComponent(
      "e2e-every-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
    let webPush = try await WebPushSandboxHarness.start(
      environment: base.environment, record: records.appendingPathComponent("webpush.jsonl"))
    let fcm = try await FCMSandboxHarness.start(
      environment: base.environment, record: records.appendingPathComponent("fcm.jsonl"))
    let ntfy = try await NtfySandboxHarness.start(
      environment: base.environment, record: records.appendingPathComponent("ntfy.jsonl"),
      token: ntfyToken)
    var environment = base.environment
    // Everything a worker might say, so that a credential slipping into a line shows.
    environment["MOWDECK_LOG_LEVEL"] = "debug"
    for settings in [webPush.workerEnvironment, fcm.workerEnvironment, ntfy.workerEnvironment] {
      environment.merge(settings) { $1 }
    }
    let serving = try WorkerProcess("ImageServeWorker", environment: environment)
    var workers = [serving]
    let port = try await listeningPort(of: serving)
    environment["MOWDECK_NOTIFICATIONS_IMAGE_BASE_URL"] = "http://127.0.0.1:\(port)"
    // The test's browser and ntfy double fetch from the plain-HTTP serving process.
    environment["MOWDECK_NOTIFICATIONS_ALLOW_HTTP_ORIGIN"] = "1"
    for name in [
      "FanoutWorker", "PhotoWorker", "APNsWorker", "WebPushWorker", "FCMWorker", "NtfyWorker",
    ] {
      workers.append(try WorkerProcess(name, environment: environment))
    }
    return EveryPlatformStack(
      db: db, session: session, base: base, webPush: webPush, fcm: fcm, ntfy: ntfy,
      environment: environment, port: port,
      processes: [base.sandbox.process, base.simulator] + workers, workers: workers,
      client: HTTPClient(caFile: nil, threadName: "e2e-client"))
  }

  /// Every line the system's processes logged so far.
  var workerLogs: String { workers.map(\.log).joined() }

  func stop() {
    for process in processes { process.stop() }
    webPush.stop()
    fcm.stop()
    ntfy.stop()
    client.shutdown()
  }

  struct Registered: Decodable {
    let topic: String?
    let subscribeURL: String?
    enum CodingKeys: String, CodingKey {
      case topic
      case subscribeURL = "subscribe_url"
    }
  }

  struct NoAnswer: Error, CustomStringConvertible {
    let description: String
  }

  /// Registers a device as an app does, with the user's session; the answer's status.
  func register(_ body: String, at path: String = "/api/v1/notifications/devices") async throws
    -> Int
  {
    try await post(body, at: path).status
  }

  /// Registers a device and reads the 201 answer's topic and subscribe URL.
  func registerAnswer(_ body: String) async throws -> Registered {
    let answer = try await post(body, at: "/api/v1/notifications/devices")
    guard answer.status == 201 else {
      throw NoAnswer(description: "the registration answered \(answer.status)")
    }
    return try WireCoding.decode(Registered.self, from: answer.body)
  }

  private func post(_ body: String, at path: String) async throws -> (status: Int, body: [UInt8]) {
    let result = await client.send(
      HTTPClientRequest(
        url: "http://127.0.0.1:\(port)\(path)",
        headers: [("authorization", "Bearer \(session)"), ("content-type", "application/json")],
        body: Array(body.utf8), timeoutSeconds: 10))
    guard case .response(let status, _, let answer) = result else {
      throw NoAnswer(description: "no answer to POST \(path): \(result)")
    }
    return (status, answer)
  }

  /// The server's VAPID public key, as the page reads it from the key route.
  func vapidPublicKey() throws -> [UInt8] {
    let path = environment["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"] ?? ""
    guard let pem = FileManager.default.contents(atPath: path),
      let key = ES256SigningKey(pem: Array(pem))
    else { throw NoAnswer(description: "no VAPID key at \(path)") }
    return key.publicKeyUncompressed
  }

  /// An FCM message as the double recorded it.
  struct FCMSend {
    struct Message: Decodable {
      struct Notification: Decodable {
        let title: String
        let body: String
      }
      struct Android: Decodable {
        struct Notification: Decodable {
          let tag: String
          let image: String?
        }
        let priority: String
        let notification: Notification
      }
      let notification: Notification
      let data: [String: String]
      let android: Android
    }
    let time: Date
    let status: Int
    let registrationToken: String?
    let message: Message
  }

  /// The first `count` sends the FCM double recorded (token grants left out).
  func fcmSends(_ count: Int) async throws -> [FCMSend] {
    var sends: [FCMSend] = []
    try await eventually(timeout: .seconds(60), "\(count) FCM sends") {
      sends = try fcm.recordLines().filter { $0.route == "send" }.compactMap { line in
        guard let message = line.message else { return nil }
        return FCMSend(
          time: line.time, status: line.status, registrationToken: line.registrationToken,
          message: try WireCoding.decode(FCMSend.Message.self, from: WireCoding.encode(message)))
      }
      return sends.count >= count
    }
    return sends
  }

  /// The first `count` publishes to `topic` the ntfy double recorded.
  func ntfyPublishes(_ count: Int, topic: String) async throws -> [NtfyRecordLine] {
    var lines: [NtfyRecordLine] = []
    try await eventually(timeout: .seconds(60), "\(count) ntfy publishes") {
      lines = try ntfy.records.lines().filter { $0.topic == topic }
      return lines.count >= count
    }
    return lines
  }

  /// An APNs push as the sandbox recorded it.
  struct APNsPush: Decodable {
    struct Payload: Decodable {
      struct APS: Decodable {
        struct Alert: Decodable { let title: String }
        let alert: Alert
      }
      let aps: APS
      let imageURL: String?
      enum CodingKeys: String, CodingKey {
        case aps
        case imageURL = "image_url"
      }
    }
    let time: String
    let token: String?
    let status: Int?
    let payload: Payload?
  }

  struct APNsLine {
    let time: Date
    let token: String?
    let status: Int?
    let title: String?
    let imageURL: String?
  }

  /// The first `count` pushes the APNs sandbox recorded.
  func apnsPushes(_ count: Int) async throws -> [APNsLine] {
    var pushes: [APNsLine] = []
    try await eventually(timeout: .seconds(60), "\(count) APNs pushes") {
      let text = (try? String(contentsOf: base.record, encoding: .utf8)) ?? ""
      pushes = try text.split(separator: "\n").map { line in
        let push = try WireCoding.decode(APNsPush.self, from: Array(line.utf8))
        return APNsLine(
          time: Timestamp.parse(push.time) ?? .distantPast, token: push.token,
          status: push.status, title: push.payload?.aps.alert.title,
          imageURL: push.payload?.imageURL)
      }
      return pushes.count >= count
    }
    return pushes
  }
}
