import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the prune worker, out of `main.swift` so tests can build their own.
enum PruneWorker {
  static func make(configuration: Configuration, logger: Logger) throws
    -> MonitoredService<PruneService>
  {
    let pool = DatabasePool(
      url: configuration.databaseURL, applicationName: "PruneWorker", maxConnections: 2)
    let metrics = Metrics(component: "PruneWorker", families: PipelineMetrics.prune)
    let endpoint = try MonitoringEndpoint.start(
      listen: configuration.metricsListen, pool: pool, nats: nil, metrics: metrics, logger: logger)
    let service = PruneService(
      pool: pool, images: ImageStore(limits: ImageLimits(configuration: configuration)),
      events: EventRetention(
        pool: pool, maximumAgeSeconds: configuration.eventsRetentionDays * 86_400,
        batchSize: configuration.pruneBatchSize),
      history: HistoryRetention(
        pool: pool, maximumAgeSeconds: configuration.eventsRetentionDays * 86_400,
        batchSize: configuration.pruneBatchSize),
      // Renewed every 5 s while pruning; a killed holder delays the next prune by 15 s.
      lease: WorkerLease(name: "prune", seconds: 15, pool: pool),
      intervalSeconds: configuration.pruneIntervalSeconds, logger: logger, metrics: metrics)
    return MonitoredService(service, endpoint: endpoint)
  }
}
