import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the APNs worker, out of `main.swift` so tests can build their own.
enum APNsWorker {
  /// Pushes one worker keeps in flight on its connections. Each costs memory until its
  /// answer: at 1,000 the worker reached 97 MiB behind a backlog (issue 9's matrix at 500
  /// alarms/s). 200 streams carry 2,000 pushes/s even at APNs's 100 ms round trips.
  static let maxInFlight = 200

  static func make(configuration: Configuration, logger: Logger, clock: any WallClock) throws
    -> MonitoredService<APNsService>
  {
    let settings = try APNsSettings(configuration: configuration)
    let token = try ProviderToken(
      keyPath: settings.keyPath, keyID: settings.keyID, teamID: settings.teamID, clock: clock)
    let signer = try SigningKeys.signer(configuration: configuration)
    let pool = DatabasePool(
      url: configuration.databaseURL, applicationName: "APNsWorker",
      maxConnections: configuration.databasePoolSize)
    let nats = try NATSClient.connect(
      url: configuration.natsURL, name: "APNsWorker", logger: logger)
    let metrics = Metrics(component: "APNsWorker", families: PipelineMetrics.apns)
    let progress = StageProgress(
      stage: "apns", stallLimit: .seconds(configuration.stallSeconds), metrics: metrics)
    let endpoint = try MonitoringEndpoint.start(
      listen: configuration.metricsListen, pool: pool, nats: nats, metrics: metrics,
      progress: progress, logger: logger)
    let store = DeliveryStore(pool: pool, leaseSeconds: configuration.apnsLeaseSeconds)
    let service = APNsService(
      store: store, outcomes: OutcomeWriter(store: store),
      client: HTTPClient(caFile: configuration.apnsCAFile, threadName: "apns-http2"),
      token: token, nats: nats, subjects: Subjects(prefix: configuration.natsSubjectPrefix),
      configuration: configuration, signer: signer, clock: clock, logger: logger,
      metrics: metrics, progress: progress, maxInFlight: maxInFlight)
    return MonitoredService(service, endpoint: endpoint)
  }
}
