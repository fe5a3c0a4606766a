import Foundation
import Testing

@testable import Infrastructure

/// How the token endpoint's answers are sorted: a token, an outage to wait out, or a
/// refusal the operator must fix.
@Suite struct OAuthTokenExchangeTests {
  static let now = Date(timeIntervalSince1970: 1_777_000_000)

  static func read(_ result: HTTPClientResult) -> Result<AccessToken, OAuthTokenError> {
    OAuthTokenExchange.read(result, obtainedAt: now, margin: 60)
  }

  static func response(_ status: Int, _ body: String) -> HTTPClientResult {
    .response(status: status, headers: [:], body: Array(body.utf8))
  }

  @Test func aGrantIsATokenRenewedAMinuteBeforeItExpires() throws {
    let token = try Self.read(
      Self.response(200, #"{"access_token":"ya29.x","expires_in":3599,"token_type":"Bearer"}"#)
    ).get()
    #expect(token.value == "ya29.x")
    #expect(token.expiresAt == Self.now.addingTimeInterval(3599))
    #expect(token.renewAt == Self.now.addingTimeInterval(3539))
  }

  @Test func aShortLivedTokenIsRenewedAtHalfItsLifeNotAtEveryCall() {
    let token = AccessToken(value: "t", obtainedAt: Self.now, expiresIn: 30, margin: 60)
    #expect(token.renewAt == Self.now.addingTimeInterval(15))
    #expect(token.expiresAt == Self.now.addingTimeInterval(30))
  }

  @Test(arguments: [
    Self.response(200, #"{"access_token":"","expires_in":3599,"token_type":"Bearer"}"#),
    Self.response(200, #"{"access_token":"x","expires_in":3599,"token_type":"mac"}"#),
    Self.response(200, #"{"access_token":"x","expires_in":0,"token_type":"Bearer"}"#),
    Self.response(200, "<html>"),
    Self.response(429, ""), Self.response(500, "{}"), Self.response(503, "down"),
    HTTPClientResult.failure("Couldn't connect to server"),
  ])
  func whatMayPassByItselfIsAnOutage(result: HTTPClientResult) {
    guard case .failure(let error) = Self.read(result) else {
      Issue.record("not a failure: \(result)")
      return
    }
    #expect(error.isOutage, "\(error)")
  }

  @Test func refusalsNameTheOAuthError() {
    let refused = Self.read(
      Self.response(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)
    )
    #expect(
      refused
        == .failure(.refused(status: 400, error: "invalid_grant", detail: "Invalid JWT Signature."))
    )
    #expect(
      Self.read(Self.response(404, "<html>not here</html>"))
        == .failure(.refused(status: 404, error: "status 404", detail: nil)))
    #expect(
      Self.read(Self.response(401, #"{"error":"invalid_client"}"#))
        == .failure(.refused(status: 401, error: "invalid_client", detail: nil)))
    #expect(!OAuthTokenError.refused(status: 400, error: "x", detail: nil).isOutage)
    #expect(!OAuthTokenError.signingFailed(.signingFailed).isOutage)
  }

  @Test func aTokenAnswerWithoutExpiresInLastsAnHour() throws {
    let token = try Self.read(Self.response(200, #"{"access_token":"t","token_type":"bearer"}"#))
      .get()
    #expect(token.expiresAt == Self.now.addingTimeInterval(3600))
  }
}
