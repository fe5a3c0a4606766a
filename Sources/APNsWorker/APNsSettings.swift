import Events
import Infrastructure

/// The settings the APNs worker cannot run without, checked at start: each missing one
/// stops the worker with one line naming it, and deliveries wait, queued, until one runs.
struct APNsSettings: Sendable {
  let keyPath: String
  let keyID: String
  let teamID: String

  init(configuration: Configuration) throws(ConfigurationError) {
    guard let keyPath = configuration.apnsKeyPath else {
      throw ConfigurationError(
        variable: "MOWDECK_NOTIFICATIONS_APNS_KEY_PATH", problem: "is not set")
    }
    guard let keyID = configuration.apnsKeyID else {
      throw ConfigurationError(variable: "MOWDECK_NOTIFICATIONS_APNS_KEY_ID", problem: "is not set")
    }
    guard let teamID = configuration.apnsTeamID else {
      throw ConfigurationError(
        variable: "MOWDECK_NOTIFICATIONS_APNS_TEAM_ID", problem: "is not set")
    }
    self.keyPath = keyPath
    self.keyID = keyID
    self.teamID = teamID
  }
}
