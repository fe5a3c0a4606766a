import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the fan-out worker, kept out of `main.swift` so tests can build one with
/// their own configuration.
enum FanoutWorker {
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
    let metrics = Metrics()
    let progress = StageProgress(
      stage: "fanout", stallLimit: .seconds(configuration.stallSeconds), metrics: metrics)
    let endpoint = try MonitoringEndpoint.start(
      listen: configuration.metricsListen, pool: pool, nats: nats, metrics: metrics,
      progress: progress, logger: logger)
    let service = FanoutService(
      store: store,
      offers: DeliveryOffers(
        store: store, nats: nats, subjects: subjects, logger: logger, metrics: metrics,
        clock: clock),
      nats: nats, subjects: subjects, clock: clock, logger: logger,
      metrics: metrics, progress: progress, maxHeld: 512,
      busyLanesWanted: 4 * configuration.databasePoolSize,
      batchSize: 64,
      ackWaitSeconds: configuration.fanoutAckWaitSeconds,
      maxAttempts: configuration.fanoutMaxAttempts)
    return MonitoredService(service, endpoint: endpoint)
  }
}
