import FoundationEssentials
import Infrastructure

/// The wiring every channel worker shares, out of its `main.swift` so that tests can build
/// their own: the pool, NATS, metrics, `/healthz` and the loop around the worker's channel.
public enum ChannelWorker {
  /// Pushes one worker keeps in flight: each push service gets one HTTP/2 connection (or
  /// HTTP/1.1 ones) from the channel's client.
  public static let maxInFlight = 200

  /// - Parameter metrics: the process's registry (`Metrics(component:)`); a channel that
  ///   counts things of its own (the FCM worker's access tokens) passes the one it counts
  ///   into, so that `/metrics` shows them beside the loop's.
  public static func make<Channel: PushChannel>(
    _ channel: Channel, configuration: Configuration, logger: Logger, clock: any WallClock,
    metrics: Metrics? = nil
  ) throws -> MonitoredService<ChannelService<Channel>> {
    let metrics = metrics ?? Metrics(component: channel.workerName)
    metrics.describe(PipelineMetrics.channel(channel.platform))
    let signer = try SigningKeys.signer(configuration: configuration)
    let pool = DatabasePool(
      url: configuration.databaseURL, applicationName: channel.workerName,
      maxConnections: configuration.databasePoolSize)
    let nats = try NATSClient.connect(
      url: configuration.natsURL, name: channel.workerName, logger: logger)
    let progress = StageProgress(
      stage: channel.platform.rawValue, stallLimit: .seconds(configuration.stallSeconds),
      metrics: metrics)
    let endpoint = try MonitoringEndpoint.start(
      listen: configuration.metricsListen, pool: pool, nats: nats, metrics: metrics,
      progress: progress, logger: logger)
    let service = ChannelService(
      channel: channel,
      // The lease outlasts a request (10 s timeout), as the APNs stage's does.
      store: ChannelStore(pool: pool, leaseSeconds: configuration.apnsLeaseSeconds),
      nats: nats, subjects: Subjects(prefix: configuration.natsSubjectPrefix),
      photos: PhotoLinks(
        signer: signer, origin: configuration.imageBaseURL,
        ttlSeconds: configuration.imageURLTTLSeconds),
      clock: clock, logger: logger, metrics: metrics, progress: progress,
      maxInFlight: maxInFlight)
    return MonitoredService(service, endpoint: endpoint)
  }
}
