import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the ntfy worker, out of `main.swift` so tests can build their own: its
/// settings and channel, in the loop every channel worker shares.
enum NtfyWorker {
  static func make(configuration: Configuration, logger: Logger, clock: any WallClock) throws
    -> MonitoredService<ChannelService<NtfyChannel>>
  {
    let settings = try NtfySettings(configuration: configuration)
    let channel = NtfyChannel(
      // One installation's server, often behind a proxy speaking HTTP/1.1: up to 8
      // connections rather than one request at a time; one HTTP/2 connection where offered.
      client: HTTPClient(
        caFile: configuration.ntfyCAFile, threadName: "ntfy-http", connectionsPerHost: 8),
      settings: settings, logger: logger)
    do {
      return try ChannelWorker.make(
        channel, configuration: configuration, logger: logger, clock: clock)
    } catch {
      channel.shutdown()
      throw error
    }
  }
}
