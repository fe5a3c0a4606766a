import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the photo worker, out of `main.swift` so tests can build their own.
enum PhotoWorker {
  static func make(configuration: Configuration, logger: Logger) throws
    -> MonitoredService<PhotoService>
  {
    let pool = DatabasePool(
      url: configuration.databaseURL, applicationName: "PhotoWorker",
      maxConnections: configuration.databasePoolSize)
    let nats = try NATSClient.connect(
      url: configuration.natsURL, name: "PhotoWorker", logger: logger)
    let store = PhotoStore(
      pool: pool, images: ImageStore(limits: ImageLimits(configuration: configuration)),
      photoTimeoutSeconds: configuration.photoTimeoutSeconds,
      followUps: PhotoFollowUps(windowSeconds: configuration.imageURLTTLSeconds))
    let metrics = Metrics(component: "PhotoWorker", families: PipelineMetrics.photo)
    let progress = StageProgress(
      stage: "photo", stallLimit: .seconds(configuration.stallSeconds), metrics: metrics)
    let endpoint = try MonitoringEndpoint.start(
      listen: configuration.metricsListen, pool: pool, nats: nats, metrics: metrics,
      progress: progress, logger: logger)
    let service = PhotoService(
      store: store,
      completer: PhotoCompleter(
        store: store, metrics: metrics, maxConcurrent: configuration.databasePoolSize),
      nats: nats, subjects: Subjects(prefix: configuration.natsSubjectPrefix),
      logger: logger, metrics: metrics, maxInFlight: configuration.photoMaxInFlight,
      heldBytes: HeldBytesBudget(limit: configuration.photoMaxHeldBytes, metrics: metrics),
      photoTimeoutSeconds: configuration.photoTimeoutSeconds,
      shedding: ThrottledWarning(
        "photo shed: the photos waiting for PostgreSQL fill the held-bytes budget",
        logger: logger),
      progress: progress,
      migrate: { try await Migrator(pool: pool, logger: logger).migrateWhenReachable() })
    return MonitoredService(service, endpoint: endpoint)
  }
}
