import FoundationEssentials

extension HTTPRouter {
  /// `GET /healthz` (200 when PostgreSQL answers, NATS is connected and the stage is not
  /// stalled, else 503, with a JSON line saying which) and `GET /metrics` (Prometheus
  /// text): what every worker serves.
  public mutating func addHealthAndMetrics(
    pool: DatabasePool, nats: NATSClient?, metrics: Metrics, progress: StageProgress? = nil,
    timeout: Duration = .seconds(2)
  ) {
    get("/healthz") { _ in
      .later {
        let database: Bool
        do {
          try await withDeadline(timeout) { try await pool.query("SELECT 1") }
          database = true
        } catch {
          database = false
        }
        let messaging = nats?.isConnected ?? true
        let stalled = progress?.stalled()
        let healthy = database && messaging && stalled == nil
        let report = HealthReport(
          status: healthy ? "ok" : "unavailable", postgres: database ? "ok" : "unreachable",
          nats: nats.map { $0.isConnected ? "ok" : "unreachable" },
          progress: progress.map { _ in
            stalled.map { "stalled for \(Int($0.components.seconds)) s" } ?? "ok"
          },
          stage: progress?.stage)
        return .json(healthy ? 200 : 503, report).adding("Cache-Control", "no-store")
      }
    }
    get("/metrics") { _ in
      .now(
        HTTPResponse(
          status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
          body: Array(metrics.render().utf8)))
    }
  }
}

/// The body of `/healthz`: what answered and what did not; `nats`, `progress` and `stage`
/// only where the process has them.
struct HealthReport: Encodable {
  let status: String
  let postgres: String
  let nats: String?
  let progress: String?
  let stage: String?
}
