import Infrastructure

/// The FCM worker's own metrics, beside the shared loop's `mowdeck_fcm_*`
/// (docs/interfaces.md#fcm): what its access tokens cost and where credentials fail.
enum FCMMetrics {
  static let grants = "mowdeck_fcm_access_token_grants_total"
  static let renewals = "mowdeck_fcm_access_token_renewals_total"
  static let tokenFailures = "mowdeck_fcm_access_token_failures_total"
  static let credentialsRefused = "mowdeck_fcm_credentials_refused_total"

  static func describe(in metrics: Metrics) {
    metrics.describe(grants, type: "counter", help: "OAuth access tokens granted since start")
    metrics.describe(
      renewals, type: "counter", help: "access tokens dropped after FCM answered 401")
    metrics.describe(
      tokenFailures, type: "counter",
      help: "attempts that found no access token (kind: outage, refused)")
    metrics.describe(
      credentialsRefused, type: "counter",
      help: "attempts deferred because FCM refused the credentials (reason)")
  }
}
