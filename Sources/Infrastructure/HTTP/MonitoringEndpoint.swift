/// Every worker's `/livez`, `/readyz`, `/healthz` and `/metrics`, on
/// `MOWDECK_METRICS_LISTEN`, for the orchestrator's checks and Prometheus: never on a
/// port the public reaches. One thread; it answers only those routes, and logs its
/// `listening` line with `"purpose":"monitoring"`.
public enum MonitoringEndpoint {
  public static func start(
    listen: String, pool: DatabasePool, nats: NATSClient?, metrics: Metrics,
    progress: StageProgress? = nil, logger: Logger
  ) throws(HTTPServerError) -> HTTPServer {
    var router = HTTPRouter()
    router.addHealthAndMetrics(pool: pool, nats: nats, metrics: metrics, progress: progress)
    return try HTTPServer.start(
      listen: listen, router: router, logger: logger, metrics: metrics,
      options: HTTPServer.Options(threads: 1, connectionLimit: 64, purpose: purpose))
  }

  /// The `purpose` of the endpoint's `listening` line.
  public static let purpose = "monitoring"
}

/// A worker's service together with its monitoring endpoint: both run until the task is
/// cancelled; the endpoint stops when the service ends.
public struct MonitoredService<Wrapped: Service>: Service {
  let service: Wrapped
  let endpoint: HTTPServer

  public init(_ service: Wrapped, endpoint: HTTPServer) {
    self.service = service
    self.endpoint = endpoint
  }

  public func run() async throws {
    // The health routes and `/metrics` answer while the service drains: the endpoint stops
    // after it.
    let serving = Task { await GracefulShutdown.$current.withValue(nil) { await endpoint.run() } }
    defer { serving.cancel() }
    do {
      try await service.run()
    } catch {
      await endpoint.stop(grace: .seconds(1))
      throw error
    }
    await endpoint.stop(grace: .seconds(1))
  }
}
