import FoundationEssentials

extension HTTPRouter {
  /// What every worker's monitoring endpoint serves: `GET /livez` (200 while the stage is
  /// not stalled), `GET /readyz` (200 when PostgreSQL answers and NATS is connected),
  /// `GET /healthz` (both), each else 503 with a JSON line saying which, and
  /// `GET /metrics` (Prometheus text).
  public mutating func addHealthAndMetrics(
    pool: DatabasePool, nats: NATSClient?, metrics: Metrics, progress: StageProgress? = nil,
    timeout: Duration = .seconds(2)
  ) {
    let probe = HealthProbe(pool: pool, nats: nats, progress: progress, timeout: timeout)
    get("/livez") { _ in .now(probe.liveness()) }
    get("/readyz") { _ in .later { await probe.readiness() } }
    get("/healthz") { _ in .later { await probe.health() } }
    get("/metrics") { _ in
      .now(
        HTTPResponse(
          status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
          body: Array(metrics.render().utf8)))
    }
  }

  /// `GET /healthz` on a public port: liveness only, `{"status":"ok"}`. It asks nothing of
  /// PostgreSQL, so a stranger's requests cost no query, and it tells nothing of what is
  /// behind the process; the full checks are on the monitoring endpoint.
  public mutating func addPublicLiveness() {
    get("/healthz") { _ in .now(HealthProbe.alive()) }
  }
}
