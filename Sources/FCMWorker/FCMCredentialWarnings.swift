import Infrastructure

/// The log lines of credential trouble, each at most a few a minute however many messages
/// meet it: a refused service account meets every message the worker holds. Each says
/// what waits and what the operator must do.
struct FCMCredentialWarnings: Sendable {
  let outage: ThrottledWarning
  let refusal: ThrottledWarning
  let credentials: ThrottledWarning

  init(logger: Logger) {
    outage = ThrottledWarning(
      "the OAuth token endpoint is unavailable; fcm deliveries are retried", logger: logger,
      limit: 3)
    refusal = ThrottledWarning(
      "the OAuth token endpoint refused the service account; fcm deliveries wait: fix "
        + "\(FCMSettings.credentialsVariable) (asked again every 5 minutes, and at a restart)",
      logger: logger, limit: 3)
    credentials = ThrottledWarning(
      "FCM refused the credentials; fcm deliveries are retried later: check the service "
        + "account's roles in its Firebase project (third_party_auth_error: the project's "
        + "APNs or Web Push credentials)", logger: logger, limit: 3)
  }
}
