import Events
import FoundationEssentials
import Infrastructure

/// The FCM channel (CONTRACT section 12, ADR 0034): each attempt's message posted to FCM's
/// HTTP v1 API with the service account's OAuth access token, and its answer classed by
/// `FCMPolicy`. A 401 renews the token and sends once more; credentials FCM keeps refusing,
/// and a token endpoint that refuses or is down, make the message wait, never a storm of
/// requests nor a flood of failed deliveries. The shared `ChannelService` claims and records.
struct FCMChannel: PushChannel {
  /// The sends: HTTP/2 to FCM, one connection carrying every stream.
  let client: HTTPClient
  /// The token endpoint's own client, so a grant never queues behind the sends.
  let oauthClient: HTTPClient
  let tokens: OAuthAccessTokenSource
  let sendURL: String
  /// How long a message waits when the token endpoint refused the service account: as
  /// long as the token source remembers the refusal, so the next try can find it mended.
  let refusalRetrySeconds: Double
  let logger: Logger
  let metrics: Metrics
  let warnings: FCMCredentialWarnings

  var platform: DevicePlatform { .fcm }
  var workerName: String { "FCMWorker" }
  var displayName: String { "FCM" }

  func attempt(_ delivery: ChannelDelivery, imageURL: String?, now: Date) async -> ChannelAnswer {
    let body = FCMRequest.body(delivery, imageURL: imageURL, now: now)
    var renewed = false
    while true {
      let accessToken: String
      do {
        accessToken = try await tokens.accessToken()
      } catch {
        return noAccessToken(error)
      }
      metrics.set(FCMMetrics.grants, Double(await tokens.grants))
      let result = await client.send(
        FCMRequest.make(sendURL: sendURL, accessToken: accessToken, body: body))
      switch FCMPolicy.read(result) {
      case .answer(let answer):
        return answer
      case .accessTokenRefused where !renewed:
        // Expired or revoked early: many sends refused with one token renew it once.
        if await tokens.invalidate(token: accessToken) {
          metrics.increment(FCMMetrics.renewals)
        }
        renewed = true
      case .accessTokenRefused:
        return credentialsRefused(status: 401, reason: "access_token_refused")
      case .credentialsRefused(let status, let reason):
        return credentialsRefused(status: status, reason: reason)
      }
    }
  }

  func shutdown() {
    client.shutdown()
    oauthClient.shutdown()
  }

  /// No token to send with: an outage passes by itself (the usual backoff); a refusal
  /// needs the operator, and waits as long as the token source holds it.
  private func noAccessToken(_ error: OAuthTokenError) -> ChannelAnswer {
    if error.isOutage {
      metrics.increment(FCMMetrics.tokenFailures, labels: ["kind": "outage"])
      warnings.outage.log(["error": error])
      return .retry(status: nil, reason: "oauth_token_unavailable", notBeforeSeconds: nil)
    }
    metrics.increment(FCMMetrics.tokenFailures, labels: ["kind": "refused"])
    warnings.refusal.log(["error": error])
    return .retry(
      status: nil, reason: "oauth_token_refused", notBeforeSeconds: refusalRetrySeconds)
  }

  /// FCM refused credentials that renewing the access token does not mend.
  private func credentialsRefused(status: Int, reason: String) -> ChannelAnswer {
    metrics.increment(FCMMetrics.credentialsRefused, labels: ["reason": reason])
    warnings.credentials.log(["status": status, "reason": reason])
    return .retry(
      status: status, reason: reason, notBeforeSeconds: FCMPolicy.credentialsRetrySeconds)
  }
}
