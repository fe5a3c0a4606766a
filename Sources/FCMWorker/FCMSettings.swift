import Events
import FoundationEssentials
import Infrastructure

/// What the FCM worker cannot run without, checked at start: the service-account file
/// (`MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH`), read with its key, and the send URL of
/// its project. A missing or unusable file stops the worker with one line naming the
/// variable and what is wrong, and the `fcm` deliveries wait, queued, until a worker runs
/// (docs/interfaces.md#configuration).
struct FCMSettings: Sendable {
  static let credentialsVariable = "MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH"

  let account: ServiceAccount
  /// `<fcm url>/v1/projects/<project_id>/messages:send`.
  let sendURL: String

  init(account: ServiceAccount, sendURL: String) {
    self.account = account
    self.sendURL = sendURL
  }

  init(configuration: Configuration) throws(ConfigurationError) {
    guard let path = configuration.fcmCredentialsPath, !path.isEmpty else {
      throw ConfigurationError(variable: Self.credentialsVariable, problem: "is not set")
    }
    do {
      account = try ServiceAccount.load(path: path)
    } catch {
      // The error names the file or the field at fault, never the key.
      throw ConfigurationError(variable: Self.credentialsVariable, problem: "is unusable: \(error)")
    }
    guard Self.isProjectID(account.projectID) else {
      throw ConfigurationError(
        variable: Self.credentialsVariable,
        problem: "is unusable: its project_id is not a Google project id")
    }
    var origin = configuration.fcmURL
    while origin.hasSuffix("/") { origin.removeLast() }
    sendURL = "\(origin)/v1/projects/\(account.projectID)/messages:send"
  }

  /// Letters, digits and hyphens, and the `.` and `:` of a domain-scoped project
  /// (`example.com:project`): nothing that would change the URL's path.
  static func isProjectID(_ id: String) -> Bool {
    !id.isEmpty && id.utf8.count <= 100
      && id.utf8.allSatisfy { byte in
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
          || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
      }
  }
}
