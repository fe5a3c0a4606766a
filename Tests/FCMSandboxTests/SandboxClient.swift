import Foundation
import Infrastructure
import TestSupport
import Testing

/// A sandbox of its own for one test, and what the tests do to it by hand: token requests
/// with assertions made to measure, sends with any bearer.
struct SandboxClient {
  let sandbox: FCMSandboxHarness

  static func with(
    acceptAnyToken: Bool = false, _ body: (SandboxClient) async throws -> Void
  ) async throws {
    let record = FileManager.default.temporaryDirectory
      .appendingPathComponent("fcm-record-\(UUID().uuidString.prefix(8)).jsonl")
    let sandbox = try await FCMSandboxHarness.start(record: record, acceptAnyToken: acceptAnyToken)
    defer {
      sandbox.stop()
      try? FileManager.default.removeItem(at: record)
    }
    try await body(SandboxClient(sandbox: sandbox))
  }

  struct Answer {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var json: JSONValue? { JSONValue.parse(body) }
    var text: String { String(decoding: body, as: UTF8.self) }
  }

  func post(_ path: String, headers: [(String, String)] = [], body: [UInt8]) async throws
    -> Answer
  {
    let result = await sandbox.post(path, headers: headers, body: body)
    guard case .response(let status, let headers, let body) = result else {
      throw FCMSandboxHarness.ControlFailed(description: "no answer to \(path): \(result)")
    }
    return Answer(status: status, headers: headers, body: body)
  }

  /// The claims a correct sender makes now.
  func claims(scope: String = OAuthAccessTokenSource.firebaseMessagingScope)
    -> OAuthAssertionClaims
  {
    let now = Int(Date().timeIntervalSince1970)
    return OAuthAssertionClaims(
      iss: FCMSandboxHarness.clientEmail, scope: scope, aud: sandbox.tokenURL, iat: now,
      exp: now + 3600)
  }

  /// POST /token with the assertion of `claims`, signed with the service account's key
  /// unless another is given, or with a raw assertion.
  func requestToken(
    _ claims: OAuthAssertionClaims? = nil, key: RS256SigningKey? = nil, assertion: String? = nil,
    grantType: String = "urn:ietf:params:oauth:grant-type:jwt-bearer"
  ) async throws -> Answer {
    let signer =
      try key ?? RS256SigningKey(pem: FCMSandboxHarness.serviceAccountKey().privateKeyPEM)
    let jwt = try assertion ?? JWTBearerAssertion.sign(claims ?? self.claims(), with: signer)
    let form = FormURLEncoding.encode([("grant_type", grantType), ("assertion", jwt)])
    return try await post(
      "/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
      body: Array(form.utf8))
  }

  /// A granted access token.
  func accessToken(scope: String = OAuthAccessTokenSource.firebaseMessagingScope) async throws
    -> String
  {
    let answer = try await requestToken(claims(scope: scope))
    guard answer.status == 200, case .object(let fields)? = answer.json,
      case .string(let token)? = fields["access_token"]
    else {
      throw FCMSandboxHarness.ControlFailed(description: "no grant: \(answer.text)")
    }
    return token
  }

  /// Sends `message` (JSON text) to `project` with `authorization` as it is.
  func send(
    _ message: String, authorization: String?, project: String = FCMSandboxHarness.projectID
  ) async throws -> Answer {
    var headers = [("Content-Type", "application/json")]
    if let authorization { headers.append(("Authorization", authorization)) }
    return try await post(
      "/v1/projects/\(project)/messages:send", headers: headers, body: Array(message.utf8))
  }

  /// A message as the FCM worker will send it, to `token`.
  static func message(to token: String) -> String {
    #"""
    {"message":{"token":"\#(token)","notification":{"title":"Robbie needs help","body":"Stuck"},
    "data":{"notification_id":"0123456789abcdef0123456789abcdef","kind":"error"},
    "android":{"priority":"HIGH","ttl":"1800s","notification":{"tag":"n1"}}}}
    """#
  }
}
