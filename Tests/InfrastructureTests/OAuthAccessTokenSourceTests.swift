import Foundation
import Infrastructure
import TestSupport
import Testing

/// The token source against the FCM sandbox's token endpoint, which checks each assertion
/// as Google does and records each request: the record file counts the grants.
@Suite struct OAuthAccessTokenSourceTests {
  /// A sandbox and a token source of their own for one test, on `clock`; the source signs
  /// with `privateKeyPEM` and asks `tokenURI` when they are given, else as the sandbox's
  /// service account.
  static func withSource(
    clock: any WallClock = SystemClock(), privateKeyPEM: String? = nil, tokenURI: String? = nil,
    _ body: (OAuthAccessTokenSource, FCMSandboxHarness) async throws -> Void
  ) async throws {
    let record = FileManager.default.temporaryDirectory
      .appendingPathComponent("fcm-record-\(UUID().uuidString.prefix(8)).jsonl")
    let sandbox = try await FCMSandboxHarness.start(record: record)
    let client = HTTPClient(caFile: sandbox.caFile, threadName: "oauth-test", connectionsPerHost: 4)
    defer {
      client.shutdown()
      sandbox.stop()
      try? FileManager.default.removeItem(at: record)
    }
    let account = try ServiceAccount.parse(
      FCMSandboxHarness.serviceAccountJSON(
        privateKeyPEM: try privateKeyPEM ?? FCMSandboxHarness.serviceAccountKey().privateKeyPEM,
        tokenURI: tokenURI ?? sandbox.tokenURL))
    let source = OAuthAccessTokenSource(account: account, client: client, clock: clock)
    try await body(source, sandbox)
  }

  /// Every request the token endpoint saw, granted or not.
  static func tokenRequests(_ sandbox: FCMSandboxHarness) throws -> [FCMRecordLine] {
    try sandbox.recordLines().filter { $0.route == "token" }
  }

  @Test func manyCallsShareOneGrant() async throws {
    try await Self.withSource { source, sandbox in
      let first = try await source.accessToken()
      for _ in 0..<20 { #expect(try await source.accessToken() == first) }
      let grants = try sandbox.grants()
      #expect(grants.count == 1)
      #expect(grants.first?.accessToken == first)
      #expect(grants.first?.iss == FCMSandboxHarness.clientEmail)
      #expect(grants.first?.scope == OAuthAccessTokenSource.firebaseMessagingScope)
      #expect(grants.first?.aud == sandbox.tokenURL)
      #expect(await source.grants == 1)
    }
  }

  @Test func fiftyConcurrentCallersWaitForOneGrant() async throws {
    try await Self.withSource { source, sandbox in
      // A slow endpoint, so that every caller arrives while the grant is under way.
      try await sandbox.setTokenEndpoint(delayMs: 300)
      let tokens = try await withThrowingTaskGroup(of: String.self) { group in
        for _ in 0..<50 { group.addTask { try await source.accessToken() } }
        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
      }
      #expect(tokens.count == 1)
      #expect(try Self.tokenRequests(sandbox).count == 1)
    }
  }

  @Test func aTokenIsRenewedShortlyBeforeItExpires() async throws {
    let clock = ManualClock(Date())
    try await Self.withSource(clock: clock) { source, sandbox in
      try await sandbox.setTokenEndpoint(expiresIn: 180)
      let first = try await source.accessToken()
      clock.advance(by: 119)
      #expect(try await source.accessToken() == first)
      // 60 s before the 180 s are up.
      clock.advance(by: 1)
      let second = try await source.accessToken()
      #expect(second != first)
      #expect(try await source.accessToken() == second)
      #expect(try sandbox.grants().map(\.accessToken) == [first, second])
    }
  }

  @Test func aTokenRefusedWith401IsRenewedOnceByManySenders() async throws {
    try await Self.withSource { source, sandbox in
      let first = try await source.accessToken()
      let message = try await Self.message(to: sandbox.makeToken())
      #expect(try await Self.send(message, bearer: first, sandbox) == 200)
      try await sandbox.expireAccessTokens()
      #expect(try await Self.send(message, bearer: first, sandbox) == 401)
      // Twenty senders got the 401 with the same token: each invalidates and asks again.
      let renewed = try await withThrowingTaskGroup(of: String.self) { group in
        for _ in 0..<20 {
          group.addTask {
            await source.invalidate(token: first)
            return try await source.accessToken()
          }
        }
        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
      }
      #expect(renewed.count == 1)
      let second = try #require(renewed.first)
      #expect(second != first)
      #expect(try await Self.send(message, bearer: second, sandbox) == 200)
      #expect(try sandbox.grants().count == 2)
      // A late 401 for the old token does not drop the new one.
      #expect(await source.invalidate(token: first) == false)
      #expect(try await source.accessToken() == second)
    }
  }

  @Test func refusedCredentialsAreATypedErrorAskedOnce() async throws {
    try await Self.withSource { source, sandbox in
      try await sandbox.setTokenEndpoint(answer: "INVALID_GRANT", delayMs: 200)
      let errors = await withTaskGroup(of: OAuthTokenError?.self) { group in
        for _ in 0..<50 {
          group.addTask {
            do throws(OAuthTokenError) {
              _ = try await source.accessToken()
              return nil
            } catch { return error }
          }
        }
        return await group.reduce(into: [OAuthTokenError?]()) { $0.append($1) }
      }
      let expected = OAuthTokenError.refused(
        status: 400, error: "invalid_grant", detail: "Invalid JWT Signature.")
      #expect(errors == Array(repeating: expected, count: 50))
      for _ in 0..<20 {
        await #expect(throws: expected) { try await source.accessToken() }
      }
      #expect(try Self.tokenRequests(sandbox).count == 1)
    }
  }

  @Test func aKeyTheEndpointDoesNotKnowIsRefused() async throws {
    let stranger = try FCMSandboxHarness.makeRSAKey().privateKeyPEM
    try await Self.withSource(privateKeyPEM: stranger) { source, sandbox in
      await #expect(
        throws: OAuthTokenError.refused(
          status: 400, error: "invalid_grant", detail: "Invalid JWT Signature.")
      ) { try await source.accessToken() }
      let statuses = try Self.tokenRequests(sandbox).map(\.status)
      #expect(statuses == [400])
    }
  }

  @Test func anOutageIsWaitedOutThenAskedAgain() async throws {
    let clock = ManualClock(Date())
    try await Self.withSource(clock: clock) { source, sandbox in
      try await sandbox.setTokenEndpoint(answer: "UNAVAILABLE")
      await #expect(throws: OAuthTokenError.outage("status 503")) {
        try await source.accessToken()
      }
      // Within the hold, from memory.
      await #expect(throws: OAuthTokenError.outage("status 503")) {
        try await source.accessToken()
      }
      #expect(try Self.tokenRequests(sandbox).count == 1)
      try await sandbox.setTokenEndpoint(answer: "OK")
      clock.advance(by: 3)
      _ = try await source.accessToken()
      #expect(try Self.tokenRequests(sandbox).map(\.status) == [503, 200])
    }
  }

  @Test func duringAnOutageAnUnexpiredTokenIsStillUsed() async throws {
    let clock = ManualClock(Date())
    try await Self.withSource(clock: clock) { source, sandbox in
      try await sandbox.setTokenEndpoint(expiresIn: 180)
      let first = try await source.accessToken()
      try await sandbox.setTokenEndpoint(answer: "UNAVAILABLE")
      clock.advance(by: 150)
      #expect(try await source.accessToken() == first)
      clock.advance(by: 31)
      await #expect(throws: OAuthTokenError.self) { try await source.accessToken() }
    }
  }

  @Test func anUnreachableEndpointIsAnOutage() async throws {
    let port = try freePort()
    try await Self.withSource(tokenURI: "https://127.0.0.1:\(port)/token") { source, _ in
      do throws(OAuthTokenError) {
        _ = try await source.accessToken()
        Issue.record("a token from nowhere")
      } catch {
        #expect(error.isOutage, "\(error)")
      }
    }
  }

  /// A minimal valid FCM message to `token`.
  static func message(to token: String) -> [UInt8] {
    Array(#"{"message":{"token":"\#(token)","notification":{"title":"t","body":"b"}}}"#.utf8)
  }

  /// Sends `message` with `bearer`; the status.
  static func send(_ message: [UInt8], bearer: String, _ sandbox: FCMSandboxHarness) async throws
    -> Int
  {
    let result = await sandbox.post(
      "/v1/projects/\(FCMSandboxHarness.projectID)/messages:send",
      headers: [("Authorization", "Bearer \(bearer)"), ("Content-Type", "application/json")],
      body: message)
    guard case .response(let status, _, _) = result else {
      throw FCMSandboxHarness.ControlFailed(description: "no answer to the send: \(result)")
    }
    return status
  }
}
