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
        var object: [String: Any] = ["postgres": database ? "ok" : "unreachable"]
        if let nats { object["nats"] = nats.isConnected ? "ok" : "unreachable" }
        let stalled = progress?.stalled()
        if let progress {
          object["progress"] =
            stalled.map { "stalled for \(Int($0.components.seconds)) s" } ?? "ok"
          object["stage"] = progress.stage
        }
        let healthy = database && messaging && stalled == nil
        object["status"] = healthy ? "ok" : "unavailable"
        return .json(healthy ? 200 : 503, object)
          .adding("Cache-Control", "no-store")
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
