import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the Web Push worker, out of `main.swift` so tests can build their own: its
/// settings and channel, in the loop every channel worker shares.
enum WebPushWorker {
  static func make(configuration: Configuration, logger: Logger, clock: any WallClock) throws
    -> MonitoredService<ChannelService<WebPushChannel>>
  {
    let settings = try WebPushSettings(configuration: configuration)
    let channel = WebPushChannel(
      // Push services speak HTTP/2 (one connection carries every stream); a service or a
      // proxy answering in HTTP/1.1 gets up to 8 connections instead of one request at a
      // time (docs/benchmarks.md, "Web Push").
      client: HTTPClient(
        caFile: configuration.webPushCAFile, threadName: "webpush-http2", connectionsPerHost: 8),
      vapid: VAPIDHeaders(vapid: settings.vapid), logger: logger)
    do {
      return try ChannelWorker.make(
        channel, configuration: configuration, logger: logger, clock: clock)
    } catch {
      channel.shutdown()
      throw error
    }
  }
}
