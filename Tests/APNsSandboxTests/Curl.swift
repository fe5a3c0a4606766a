import Foundation
import Infrastructure
import Testing

/// One push as the test wants it sent: valid unless the test changes something.
struct Push {
  static let token = String(repeating: "ab", count: 32)

  var token = Push.token
  var method = "POST"
  /// Overrides the `/3/device/<token>` path.
  var path: String?
  /// nil: a fresh valid provider token.
  var authorization: String?
  var headers: [(name: String, value: String)] = [
    ("apns-topic", SandboxProcess.topic), ("apns-push-type", "alert"), ("apns-priority", "10"),
    ("apns-expiration", "1795953600"), ("apns-id", "123e4567-e89b-12d3-a456-4266554400a0"),
    ("apns-collapse-id", "5f0c8f3e-notification"),
  ]
  var payload: [UInt8]? = Array(
    #"{"aps":{"alert":{"title":"Robbie","body":"Robbie was lifted"},"sound":"default"},"notification_id":"5f0c8f3e"}"#
      .utf8)
  var withoutAuthorization = false

  /// A copy with `change` applied.
  func changed(_ change: (inout Push) -> Void) -> Push {
    var copy = self
    change(&copy)
    return copy
  }

  /// The push with header `name` set to `value`, or removed when `value` is nil.
  func with(_ name: String, _ value: String?) -> Push {
    var copy = self
    copy.headers.removeAll { $0.name == name }
    if let value { copy.headers.append((name, value)) }
    return copy
  }
}

/// What curl saw of one transfer.
struct CurlReply {
  var status: Int
  /// `%{http_version}`: "2" for HTTP/2, "0" when no response came.
  var httpVersion: String
  /// Connections this transfer opened (0 when it reused one).
  var connects: Int
  var headers: [String: String]
  var body: String
  var exitCode: Int32
  var error: String

  /// The body's JSON object, or an empty one.
  var json: [String: JSONValue] {
    JSON.object(from: Array(body.utf8)) ?? [:]
  }
}

/// curl as the HTTP/2 client: TLS against the test CA, ALPN h2, one connection per
/// invocation that all its transfers share (`parallel`: multiplexed at once, otherwise one
/// after another on the kept-alive connection).
enum Curl {
  static func send(
    _ push: Push, to sandbox: SandboxProcess, extra: [String] = []
  ) async throws -> CurlReply {
    try await send(push, to: sandbox.endpoint, count: 1, extra: extra)[0]
  }

  static func send(
    _ push: Push, to sandbox: SandboxProcess, count: Int, parallel: Bool = false,
    extra: [String] = []
  ) async throws -> [CurlReply] {
    try await send(push, to: sandbox.endpoint, count: count, parallel: parallel, extra: extra)
  }

  /// `count` transfers of the same push in one curl invocation.
  static func send(
    _ push: Push, to sandbox: SandboxEndpoint, count: Int = 1, parallel: Bool = false,
    extra: [String] = []
  ) async throws -> [CurlReply] {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("curl-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    var arguments = [
      "--http2", "--cacert", sandbox.pki.caCertificate, "-sS", "--max-time", "20",
      "-X", push.method, "-w", "%{http_code} %{http_version} %{num_connects}\n",
    ]
    if parallel { arguments += ["-Z", "--parallel-max", "100"] }
    if !push.withoutAuthorization {
      let authorization = try push.authorization ?? "bearer " + sandbox.providerToken()
      arguments += ["-H", "authorization: \(authorization)"]
    }
    for (name, value) in push.headers {
      arguments += ["-H", value.isEmpty ? "\(name);" : "\(name): \(value)"]
    }
    if let payload = push.payload {
      let file = directory.appendingPathComponent("payload")
      try Data(payload).write(to: file)
      arguments += ["--data-binary", "@\(file.path)"]
    }
    arguments += extra
    let url =
      "https://127.0.0.1:\(sandbox.port)" + (push.path ?? "/3/device/\(push.token)")
    for index in 0..<count {
      arguments += [
        "-D", directory.appendingPathComponent("headers-\(index)").path,
        "-o", directory.appendingPathComponent("body-\(index)").path, url,
      ]
    }
    let result = try await runProcess("/usr/bin/env", ["curl"] + arguments)
    let lines = result.output.split(separator: "\n")
    return try (0..<count).map { index in
      // In parallel mode lines come in completion order; the tests that use it only
      // count them, so pairing a line with a body file is then meaningless but harmless.
      guard index < lines.count else {
        throw HarnessFailure(
          "curl printed \(lines.count) lines for \(count) transfers: \(result.error)")
      }
      let fields = lines[index].split(separator: " ")
      let headerText =
        (try? String(
          contentsOf: directory.appendingPathComponent("headers-\(index)"), encoding: .utf8))
        ?? ""
      let body =
        (try? String(contentsOf: directory.appendingPathComponent("body-\(index)"), encoding: .utf8))
        ?? ""
      return CurlReply(
        status: Int(fields[0]) ?? -1, httpVersion: String(fields[1]),
        connects: Int(fields[2]) ?? -1, headers: parseHeaders(headerText), body: body,
        exitCode: result.status, error: result.error)
    }
  }

  private static func parseHeaders(_ text: String) -> [String: String] {
    var headers: [String: String] = [:]
    for line in text.split(whereSeparator: \.isNewline) {
      guard let colon = line.firstIndex(of: ":"), !line.hasPrefix(":") else { continue }
      let name = line[..<colon].lowercased()
      headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return headers
  }
}

extension Push: CustomTestStringConvertible {
  var testDescription: String {
    "\(method) \(path ?? "/3/device/\(token.prefix(8))…") with \(headers.map(\.name))"
  }
}
