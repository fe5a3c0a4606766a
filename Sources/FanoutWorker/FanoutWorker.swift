import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the fan-out worker, kept out of `main.swift` so tests can build one with
/// their own configuration.
enum FanoutWorker {
  /// Alarms decided in one transaction at most (ADR 0039).
  static let maxBatch = 128
  /// Mowers with alarms in hand: enough to fill the batches of every pooled connection
  /// while a fetch is under way (docs/benchmarks.md, "mass events").
  static let busyLanesWanted = 256

  static func make(configuration: Configuration, logger: Logger, clock: any WallClock)
    throws -> MonitoredService<FanoutService>
  {
    let pool = DatabasePool(
      url: configuration.databaseURL, applicationName: "FanoutWorker",
      maxConnections: configuration.databasePoolSize)
    let nats = try NATSClient.connect(
      url: configuration.natsURL, name: "FanoutWorker", logger: logger)
    let subjects = Subjects(prefix: configuration.natsSubjectPrefix)
    let store = FanoutStore(
      pool: pool, rules: DecisionRules(configuration: configuration), subjects: subjects)
    let metrics = Metrics(component: "FanoutWorker", families: PipelineMetrics.fanout)
    let progress = StageProgress(
      stage: "fanout", stallLimit: .seconds(configuration.stallSeconds), metrics: metrics)
    let endpoint = try MonitoringEndpoint.start(
      listen: configuration.metricsListen, pool: pool, nats: nats, metrics: metrics,
      progress: progress, logger: logger)
    let service = FanoutService(
      store: store,
      batcher: DecisionBatcher(
        store: store, metrics: metrics,
        maxConcurrent: min(configuration.fanoutTransactions, configuration.databasePoolSize),
        maxBatch: Self.maxBatch),
      offers: DeliveryOffers(
        store: store, nats: nats, subjects: subjects, logger: logger, metrics: metrics,
        clock: clock),
      nats: nats, subjects: subjects, clock: clock, logger: logger,
      metrics: metrics, progress: progress, maxHeld: 512,
      busyLanesWanted: Self.busyLanesWanted,
      batchSize: 64,
      ackWaitSeconds: configuration.fanoutAckWaitSeconds,
      streamReplicas: configuration.jetStreamReplicas,
      maxAttempts: configuration.fanoutMaxAttempts)
    return MonitoredService(service, endpoint: endpoint)
  }
}
