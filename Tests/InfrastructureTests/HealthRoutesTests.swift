import Foundation
import Infrastructure
import TestSupport
import Testing

/// The monitoring endpoint's routes: liveness asks nothing of PostgreSQL and fails only on
/// a stall; readiness asks PostgreSQL and fails only when it does not answer.
@Suite struct HealthRoutesTests {
  private struct Answer {
    let status: Int
    let body: [String: JSONValue]
  }

  /// A GET by curl (HTTPClient only posts, as pushes do).
  private func get(_ port: Int, _ path: String) async throws -> Answer {
    let output = try await runShellOffThePool(
      "curl -s -m 20 -w '\\n%{http_code}' http://127.0.0.1:\(port)\(path)")
    let lines = output.split(separator: "\n")
    let status = Int(lines.last ?? "") ?? 0
    let body = lines.dropLast().joined(separator: "\n")
    return Answer(status: status, body: JSON.object(from: Array(body.utf8)) ?? [:])
  }

  private func endpoint(databaseURL: String, progress: StageProgress?, metrics: Metrics)
    throws -> HTTPServer
  {
    try MonitoringEndpoint.start(
      listen: "127.0.0.1:0",
      pool: DatabasePool(url: databaseURL, applicationName: "health-test", maxConnections: 1),
      nats: nil, metrics: metrics, progress: progress, logger: TestServers.logger)
  }

  @Test func aStalledStageIsNotLiveButStillReady() async throws {
    let db = try await TestDatabase.make()
    let metrics = Metrics()
    let progress = StageProgress(stage: "fanout", stallLimit: .milliseconds(50), metrics: metrics)
    let server = try endpoint(databaseURL: db.url, progress: progress, metrics: metrics)
    let live = try await get(server.port, "/livez")
    #expect(live.status == 200)
    #expect(live.body["progress"]?.string == "ok" && live.body["stage"]?.string == "fanout")
    #expect(live.body["postgres"] == nil, "liveness must not ask PostgreSQL")
    progress.waiting(3, oldestAgeSeconds: 1)
    try await Task.sleep(for: .milliseconds(120))
    let stalled = try await get(server.port, "/livez")
    #expect(stalled.status == 503)
    #expect((stalled.body["progress"]?.string)?.hasPrefix("stalled for") == true)
    let ready = try await get(server.port, "/readyz")
    #expect(ready.status == 200)
    #expect(ready.body["postgres"]?.string == "ok" && ready.body["progress"] == nil)
    #expect(try await get(server.port, "/healthz").status == 503)
    await server.stop()
  }

  @Test func withoutPostgreSQLTheWorkerIsLiveButNotReady() async throws {
    let metrics = Metrics()
    let progress = StageProgress(stage: "photo", stallLimit: .seconds(60), metrics: metrics)
    let server = try endpoint(
      databaseURL: "postgresql://postgres@127.0.0.1:1/none", progress: progress, metrics: metrics)
    #expect(try await get(server.port, "/livez").status == 200)
    let ready = try await get(server.port, "/readyz")
    #expect(ready.status == 503)
    #expect(ready.body["status"]?.string == "unavailable")
    #expect(ready.body["postgres"]?.string == "unreachable")
    let health = try await get(server.port, "/healthz")
    #expect(health.status == 503 && health.body["progress"]?.string == "ok")
    await server.stop()
  }
}
