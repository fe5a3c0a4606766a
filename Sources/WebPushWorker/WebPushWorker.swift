import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the Web Push worker, out of `main.swift` so tests can build their own.
enum WebPushWorker {
  /// Pushes one worker keeps in flight: each push service gets one HTTP/2 connection (or
  /// HTTP/1.1 ones) from the shared client.
  static let maxInFlight = 200

  static func make(configuration: Configuration, logger: Logger, clock: any WallClock) throws
    -> MonitoredService<WebPushService>
  {
    let settings = try WebPushSettings(configuration: configuration)
    let signer = try SigningKeys.signer(configuration: configuration)
    let pool = DatabasePool(
      url: configuration.databaseURL, applicationName: "WebPushWorker",
      maxConnections: configuration.databasePoolSize)
    let nats = try NATSClient.connect(
      url: configuration.natsURL, name: "WebPushWorker", logger: logger)
    let metrics = Metrics()
    let progress = StageProgress(
      stage: "webpush", stallLimit: .seconds(configuration.stallSeconds), metrics: metrics)
    let endpoint = try MonitoringEndpoint.start(
      listen: configuration.metricsListen, pool: pool, nats: nats, metrics: metrics,
      progress: progress, logger: logger)
    let service = WebPushService(
      store: WebPushStore(pool: pool, leaseSeconds: configuration.apnsLeaseSeconds),
      // Push services speak HTTP/2 (one connection carries every stream); a service or a
      // proxy answering in HTTP/1.1 gets up to 8 connections instead of one request at a
      // time (docs/benchmarks.md, "Web Push").
      client: HTTPClient(
        caFile: configuration.webPushCAFile, threadName: "webpush-http2", connectionsPerHost: 8),
      vapid: VAPIDHeaders(vapid: settings.vapid), nats: nats,
      subjects: Subjects(prefix: configuration.natsSubjectPrefix), configuration: configuration,
      signer: signer, clock: clock, logger: logger, metrics: metrics, progress: progress,
      maxInFlight: maxInFlight)
    return MonitoredService(service, endpoint: endpoint)
  }
}
