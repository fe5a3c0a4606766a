import Events
import FoundationEssentials
import Infrastructure

/// What the Web Push worker cannot run without, checked at start: the VAPID key and its
/// subject. Each missing or unusable one stops the worker with one line naming it, and the
/// `webpush` deliveries wait, queued, until a worker runs (docs/interfaces.md#configuration).
struct WebPushSettings: Sendable {
  let vapid: VAPIDAuthorization

  init(configuration: Configuration) throws(ConfigurationError) {
    let keyVariable = "MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"
    let subjectVariable = "MOWDECK_NOTIFICATIONS_WEBPUSH_SUBJECT"
    guard let path = configuration.webPushVAPIDKeyPath else {
      throw ConfigurationError(variable: keyVariable, problem: "is not set")
    }
    guard let subject = configuration.webPushSubject else {
      throw ConfigurationError(variable: subjectVariable, problem: "is not set")
    }
    guard let pem = FileManager.default.contents(atPath: path), !pem.isEmpty else {
      throw ConfigurationError(variable: keyVariable, problem: "cannot be read (\(path))")
    }
    guard let key = ES256SigningKey(pem: Array(pem)) else {
      throw ConfigurationError(
        variable: keyVariable, problem: "is not a P-256 private key (\(path))")
    }
    do {
      vapid = try VAPIDAuthorization(key: key, subject: subject)
    } catch {
      throw ConfigurationError(
        variable: subjectVariable, problem: "must be a mailto: address or an https URL")
    }
  }
}
