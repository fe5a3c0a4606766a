/// The checks behind a worker's `/livez`, `/readyz` and `/healthz`. Liveness is what an
/// orchestrator restarts on: the process answers and its stage is not stalled; it never
/// asks PostgreSQL or NATS, because restarting a worker does not bring back its database.
/// Readiness is what a load balancer routes on: PostgreSQL answers and NATS is connected.
/// `/healthz` is both, as it has always been.
struct HealthProbe: Sendable {
  let pool: DatabasePool
  let nats: NATSClient?
  let progress: StageProgress?
  let timeout: Duration

  func liveness() -> HTTPResponse {
    answer(HealthReport(progress: progressReport()))
  }

  func readiness() async -> HTTPResponse {
    answer(HealthReport(postgres: await postgresReport(), nats: natsReport()))
  }

  func health() async -> HTTPResponse {
    answer(
      HealthReport(
        postgres: await postgresReport(), nats: natsReport(), progress: progressReport()))
  }

  /// A liveness answer for a process without checks of its own: it answered, so it runs.
  static func alive() -> HTTPResponse {
    .json(200, HealthReport(status: "ok")).adding("Cache-Control", "no-store")
  }

  private func answer(_ report: HealthReport) -> HTTPResponse {
    .json(report.status == "ok" ? 200 : 503, report).adding("Cache-Control", "no-store")
  }

  private func postgresReport() async -> String {
    do {
      try await withDeadline(timeout) { try await pool.query("SELECT 1") }
      return "ok"
    } catch {
      return "unreachable"
    }
  }

  private func natsReport() -> String? {
    nats.map { $0.isConnected ? "ok" : "unreachable" }
  }

  private func progressReport() -> (String, String)? {
    guard let progress else { return nil }
    let state = progress.stalled().map { "stalled for \(Int($0.components.seconds)) s" } ?? "ok"
    return (progress.stage, state)
  }
}

/// The body of the health routes: what was checked and how it answered; a check a route
/// does not make, or a process does not have, is left out.
struct HealthReport: Encodable {
  let status: String
  let postgres: String?
  let nats: String?
  let progress: String?
  let stage: String?

  init(status: String) {
    self.status = status
    postgres = nil
    nats = nil
    progress = nil
    stage = nil
  }

  /// `ok` when every check made answered `ok`, else `unavailable`.
  init(postgres: String? = nil, nats: String? = nil, progress: (String, String)? = nil) {
    self.postgres = postgres
    self.nats = nats
    self.stage = progress?.0
    self.progress = progress?.1
    let checks = [postgres, nats, progress?.1].compactMap { $0 }
    status = checks.allSatisfy { $0 == "ok" } ? "ok" : "unavailable"
  }
}
