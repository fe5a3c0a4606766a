import Foundation
import Infrastructure
import TestSupport
import Testing

/// The token endpoint refuses what Google's refuses, with Google's RFC 6749 errors.
@Suite struct TokenEndpointTests {
  @Test func aCorrectAssertionIsGrantedABearerToken() async throws {
    try await SandboxClient.with { client in
      let answer = try await client.requestToken()
      #expect(answer.status == 200)
      guard case .object(let fields)? = answer.json else {
        Issue.record("not an object: \(answer.text)")
        return
      }
      #expect(Set(fields.keys) == ["access_token", "expires_in", "token_type"])
      #expect(fields["expires_in"] == .integer(3599))
      #expect(fields["token_type"] == .string("Bearer"))
      guard case .string(let token)? = fields["access_token"] else { return }
      #expect(token.hasPrefix("ya29."))
      let line = try #require(try client.sandbox.recordLines().first)
      #expect(line.route == "token")
      #expect(line.status == 200)
      #expect(line.accessToken == token)
      #expect(line.expiresIn == 3599)
      #expect(line.iss == FCMSandboxHarness.clientEmail)
      #expect(line.aud == client.sandbox.tokenURL)
      #expect(line.scope == OAuthAccessTokenSource.firebaseMessagingScope)
    }
  }

  /// Each bad assertion, and the error Google answers it with.
  @Test func badAssertionsAreRefusedAsGoogleRefusesThem() async throws {
    try await SandboxClient.with { client in
      let now = Int(Date().timeIntervalSince1970)
      let good = client.claims()
      var wrongAud = good
      wrongAud.aud = "https://oauth2.googleapis.com/token"
      var wrongIss = good
      wrongIss.iss = "someone@else.iam.gserviceaccount.com"
      var expired = good
      (expired.iat, expired.exp) = (now - 4000, now - 400)
      var tooLong = good
      tooLong.exp = now + 3601
      var future = good
      (future.iat, future.exp) = (now + 900, now + 1800)
      var noScope = good
      noScope.scope = ""
      let otherKey = try RS256SigningKey(pem: FCMSandboxHarness.makeRSAKey().privateKeyPEM)
      let cases: [(answer: SandboxClient.Answer, error: String, detail: String)] = [
        (
          try await client.requestToken(good, key: otherKey), "invalid_grant",
          "Invalid JWT Signature."
        ),
        (
          try await client.requestToken(wrongAud), "invalid_grant",
          "Invalid JWT: Failed audience check. The right audience is \(client.sandbox.tokenURL)"
        ),
        (
          try await client.requestToken(wrongIss), "invalid_grant",
          "Invalid grant: account not found"
        ),
        (
          try await client.requestToken(noScope), "invalid_scope",
          "Empty or missing scope not allowed."
        ),
        (
          try await client.requestToken(assertion: "not.a.jwt!"), "invalid_grant",
          "Invalid JWT: not an RS256 JWT"
        ),
        (
          try await client.requestToken(grantType: "client_credentials"), "unsupported_grant_type",
          "Invalid grant_type: client_credentials"
        ),
      ]
      for (answer, error, detail) in cases {
        #expect(answer.status == 400)
        #expect(
          answer.json
            == .object(["error": .string(error), "error_description": .string(detail)]),
          "\(answer.text)")
      }
      for claims in [expired, tooLong, future] {
        let answer = try await client.requestToken(claims)
        #expect(answer.status == 400)
        #expect(answer.text.contains("Token must be a short-lived token (60 minutes)"))
      }
      let lines = try client.sandbox.recordLines()
      #expect(lines.count == cases.count + 3)
      #expect(lines.allSatisfy { $0.status == 400 && $0.accessToken == nil })
      // Claims are recorded only from an assertion whose signature verified.
      #expect(lines[0].iss == nil && lines[0].error == "invalid_grant")
      #expect(lines[1].aud == "https://oauth2.googleapis.com/token")
    }
  }

  @Test func aTokenWithoutTheMessagingScopeCannotSend() async throws {
    try await SandboxClient.with { client in
      let token = try await client.accessToken(
        scope: "https://www.googleapis.com/auth/userinfo.email")
      let answer = try await client.send(
        SandboxClient.message(to: client.sandbox.makeToken()), authorization: "Bearer \(token)")
      #expect(answer.status == 403)
      #expect(answer.text.contains(#""status":"PERMISSION_DENIED""#))
      #expect(answer.text.contains("ACCESS_TOKEN_SCOPE_INSUFFICIENT"))
      // cloud-platform covers messaging, as at Google.
      let broad = try await client.accessToken(
        scope: "openid https://www.googleapis.com/auth/cloud-platform")
      let sent = try await client.send(
        SandboxClient.message(to: client.sandbox.makeToken()), authorization: "Bearer \(broad)")
      #expect(sent.status == 200)
    }
  }

  @Test func theEndpointCanBeMadeToRefuseOrFailAndToGrantShortTokens() async throws {
    try await SandboxClient.with { client in
      try await client.sandbox.setTokenEndpoint(answer: "UNAVAILABLE")
      #expect(try await client.requestToken().status == 503)
      try await client.sandbox.setTokenEndpoint(answer: "INVALID_GRANT")
      let refused = try await client.requestToken()
      #expect(refused.status == 400)
      #expect(refused.text.contains("invalid_grant"))
      try await client.sandbox.setTokenEndpoint(answer: "OK", expiresIn: 1)
      let token = try await client.accessToken()
      let message = SandboxClient.message(to: try await client.sandbox.makeToken())
      #expect(try await client.send(message, authorization: "Bearer \(token)").status == 200)
      try await Task.sleep(for: .milliseconds(1100))
      let late = try await client.send(message, authorization: "Bearer \(token)")
      #expect(late.status == 401)
      #expect(late.text.contains("ACCESS_TOKEN_EXPIRED"))
      await #expect(throws: FCMSandboxHarness.ControlFailed.self) {
        try await client.sandbox.setTokenEndpoint(answer: "MAYBE")
      }
      await #expect(throws: FCMSandboxHarness.ControlFailed.self) {
        try await client.sandbox.setTokenEndpoint(expiresIn: 3601)
      }
    }
  }
}
