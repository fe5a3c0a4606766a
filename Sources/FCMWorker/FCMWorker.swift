import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the FCM worker, out of `main.swift` so tests can build their own: its
/// settings, token source and channel, in the loop every channel worker shares.
enum FCMWorker {
  static func make(configuration: Configuration, logger: Logger, clock: any WallClock) throws
    -> MonitoredService<ChannelService<FCMChannel>>
  {
    let settings = try FCMSettings(configuration: configuration)
    let channel = makeChannel(
      settings: settings, caFile: configuration.fcmCAFile, logger: logger, clock: clock,
      metrics: Metrics(component: "FCMWorker"))
    do {
      return try ChannelWorker.make(
        channel, configuration: configuration, logger: logger, clock: clock,
        metrics: channel.metrics)
    } catch {
      channel.shutdown()
      throw error
    }
  }

  /// The channel alone, for tests that send without a database.
  static func makeChannel(
    settings: FCMSettings, caFile: String?, logger: Logger, clock: any WallClock,
    metrics: Metrics, tokenSettings: OAuthAccessTokenSource.Settings = .init()
  ) -> FCMChannel {
    FCMMetrics.describe(in: metrics)
    let oauthClient = HTTPClient(caFile: caFile, threadName: "fcm-oauth")
    return FCMChannel(
      // One connection, as to APNs: FCM's API speaks HTTP/2 (and so does its double), whose
      // one connection carries up to 1000 streams at once; Google asks senders to reuse
      // connections, and a second one would only add a TLS handshake and a second flow of
      // window updates. Only a proxy speaking HTTP/1.1 would make this one request at a time.
      client: HTTPClient(caFile: caFile, threadName: "fcm-http2", connectionsPerHost: 1),
      oauthClient: oauthClient,
      tokens: OAuthAccessTokenSource(
        account: settings.account, client: oauthClient, clock: clock, settings: tokenSettings),
      sendURL: settings.sendURL, refusalRetrySeconds: tokenSettings.refusalHold, logger: logger,
      metrics: metrics, warnings: FCMCredentialWarnings(logger: logger))
  }
}
