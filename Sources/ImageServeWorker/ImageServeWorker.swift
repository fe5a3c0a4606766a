import Events
import FoundationEssentials
import Infrastructure

/// The wiring of the image server, out of `main.swift` so tests build their own, with
/// port 0 and a clock they control.
enum ImageServeWorker {
  /// Photos kept in memory after a fetch (see PhotoCache): about 16 of the largest. The
  /// phones of one alarm ask within the same second or two, so a small cache catches nearly
  /// every repeat; 64 MiB had put the process over its 64 MB budget (issue 9's benchmark).
  static let cacheBytes = 8 * 1024 * 1024
  /// How long a request may wait for PostgreSQL before it answers 503: well inside the
  /// phone's own 6 s timeout.
  static let databaseDeadline = Duration.seconds(3)

  static func make(
    configuration: Configuration, logger: Logger, clock: any WallClock = SystemClock(),
    options: HTTPServer.Options = HTTPServer.Options(workDeadline: databaseDeadline)
  ) throws -> ImageServeService {
    let pool = DatabasePool(
      url: configuration.databaseURL, applicationName: "ImageServeWorker",
      maxConnections: configuration.databasePoolSize)
    let nats = try NATSClient.connect(
      url: configuration.natsURL, name: "ImageServeWorker", logger: logger)
    let signer = try SigningKeys.signer(configuration: configuration)
    if signer == nil {
      logger.warning(
        "no image key: push-image URLs answer 404",
        ["hint": "set MOWDECK_NOTIFICATIONS_IMAGE_SECRET or the APNs key"])
    }
    let metrics = Metrics(component: "ImageServeWorker", families: PipelineMetrics.imageServe)
    let responder = PhotoResponder(
      store: PhotoStore(pool: pool), cache: PhotoCache(maxBytes: cacheBytes),
      served: ServedLog(pool: pool), metrics: metrics, logger: logger)
    let limits = ServeLimits(
      perNotification: configuration.imageRatePerNotification,
      total: configuration.imageRateTotal,
      unsignedPerClient: configuration.imageRatePerNotification, metrics: metrics)
    let push = PushImageRoute(signer: signer, limits: limits, responder: responder, clock: clock)
    let auth = SessionAuth(directory: Directory(pool: pool))

    var router = HTTPRouter()
    router.get(PushImageRoute.pattern) { push.handle($0) }
    InboxRoutes(auth: auth, inbox: InboxStore(pool: pool), responder: responder, logger: logger)
      .register(in: &router)
    DeviceRoutes(
      auth: auth,
      offer: DeviceRegistration.Offer(
        webPushHosts: configuration.webPushHosts, ntfyURL: configuration.ntfyURL),
      logger: logger
    ).register(in: &router)
    InboxPage.register(in: &router)
    ServiceWorkerScript.register(in: &router)
    WebPushKeyRoute(
      publicKey: WebPushKeyRoute.publicKey(configuration: configuration, logger: logger)
    ).register(in: &router)
    // The public port answers the contract's routes and a bare liveness `/healthz`; the
    // checks that ask PostgreSQL and NATS, and `/metrics`, are on the monitoring endpoint,
    // which the public never reaches.
    router.addPublicLiveness()

    var options = options
    options.trustedProxies = configuration.trustedProxies
    // Started first: its `listening` line is the first the process logs, as before.
    let server = try HTTPServer.start(
      listen: configuration.httpListen, router: router, logger: logger, metrics: metrics,
      options: options)
    let monitoring = try MonitoringEndpoint.start(
      listen: configuration.metricsListen, pool: pool, nats: nats, metrics: metrics,
      logger: logger)
    return ImageServeService(
      server: server, monitoring: monitoring,
      migrate: { try await Migrator(pool: pool, logger: logger).migrateWhenReachable() },
      logger: logger)
  }
}
