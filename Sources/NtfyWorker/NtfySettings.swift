import Events
import FoundationEssentials
import Infrastructure

/// What the ntfy worker needs, checked at start: the server (without it the worker stops
/// with one line naming the variable, and `ntfy` deliveries wait, queued, until a worker
/// runs), its access token if any, and where a tap on a notification leads.
struct NtfySettings: Sendable, Equatable {
  /// `MOWDECK_NOTIFICATIONS_NTFY_URL`, without a trailing slash; topics go after it.
  let serverURL: String
  /// `MOWDECK_NOTIFICATIONS_NTFY_TOKEN`, sent as a bearer token; nil: publish anonymously.
  let token: String?
  /// The web inbox (`<image base URL>/inbox`, the ImageServeWorker's `InboxPage`); nil
  /// when no public origin is configured, and then no `Click` is sent.
  let inboxURL: String?

  init(serverURL: String, token: String?, inboxURL: String?) {
    self.serverURL = serverURL
    self.token = token
    self.inboxURL = inboxURL
  }

  init(configuration: Configuration) throws(ConfigurationError) {
    guard let url = configuration.ntfyURL else {
      throw ConfigurationError(variable: "MOWDECK_NOTIFICATIONS_NTFY_URL", problem: "is not set")
    }
    // A token goes into a header as it is: a space or a line break would end it early.
    if let token = configuration.ntfyToken,
      !token.utf8.allSatisfy({ (33...126).contains($0) })
    {
      throw ConfigurationError(
        variable: "MOWDECK_NOTIFICATIONS_NTFY_TOKEN",
        problem: "must be printable ASCII without spaces")
    }
    self.init(
      serverURL: Self.withoutTrailingSlash(url), token: configuration.ntfyToken,
      inboxURL: configuration.imageBaseURL.map { Self.withoutTrailingSlash($0) + "/inbox" })
  }

  private static func withoutTrailingSlash(_ url: String) -> String {
    var url = url
    while url.hasSuffix("/") { url.removeLast() }
    return url
  }
}
