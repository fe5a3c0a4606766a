import Events
import FoundationEssentials
import Infrastructure

/// The ntfy channel (ADR 0035): each attempt published to its device's topic on the
/// installation's ntfy server, and its answer classed by `NtfyPolicy`. The shared
/// `ChannelService` claims and records.
struct NtfyChannel: PushChannel {
  let client: HTTPClient
  let settings: NtfySettings
  let logger: Logger
  /// Refused credentials stop every ntfy delivery until someone acts: an error an operator
  /// sees, at most ten lines a minute however many deliveries meet it.
  let refusals: ThrottledWarning

  init(client: HTTPClient, settings: NtfySettings, logger: Logger) {
    self.client = client
    self.settings = settings
    self.logger = logger
    refusals = ThrottledWarning(
      "the ntfy server refuses this server's access token: check MOWDECK_NOTIFICATIONS_NTFY_TOKEN"
        + " and its write access to the topics; ntfy deliveries are retried meanwhile",
      logger: logger, level: .error)
  }

  var platform: DevicePlatform { .ntfy }
  var workerName: String { "NtfyWorker" }
  var displayName: String { "ntfy" }

  func attempt(_ delivery: ChannelDelivery, imageURL: String?, now: Date) async -> ChannelAnswer {
    guard NtfyRequest.isValidTopic(delivery.address) else {
      // Not a topic the server made: it can never be published to, and must not become a
      // path on the ntfy server.
      logger.warning(
        "an ntfy device's topic is not an ntfy topic",
        ["delivery_id": delivery.deliveryID, "device_id": delivery.deviceID])
      return .failed(status: nil, reason: "bad_topic", deactivateDevice: true)
    }
    let answer = NtfyPolicy.classify(
      await client.send(NtfyRequest.make(delivery, imageURL: imageURL, settings: settings)))
    if case .retry(let status?, NtfyPolicy.credentialsRefused, _) = answer {
      refusals.log(["status": status])
    }
    return answer
  }

  func shutdown() { client.shutdown() }
}
