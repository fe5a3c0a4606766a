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
      // FCM speaks HTTP/2: one connection carries every stream. A proxy or a double
      // answering in HTTP/1.1 gets up to 8 connections instead of one request at a time.
      client: HTTPClient(caFile: caFile, threadName: "fcm-http2", connectionsPerHost: 8),
      oauthClient: oauthClient,
      tokens: OAuthAccessTokenSource(
        account: settings.account, client: oauthClient, clock: clock, settings: tokenSettings),
      sendURL: settings.sendURL, refusalRetrySeconds: tokenSettings.refusalHold, logger: logger,
      metrics: metrics, warnings: FCMCredentialWarnings(logger: logger))
  }
}
