import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// The serving process's two listeners (issue 26): the public port answers the contract's
/// routes and a bare liveness `/healthz`; `/metrics` and the checks are on the monitoring
/// endpoint, like every other worker's.
@Suite struct ServeMonitoringTests {
  @Test func thePublicPortAnswersNoMetricsAndOnlyABareLiveness() async throws {
    try await ServeFixture.with { fixture in
      #expect(fixture.port != fixture.monitoringPort)
      for path in ["/metrics", "/livez", "/readyz"] {
        #expect(try await fixture.get(path).status == 404, "\(path) on the public port")
      }
      let health = try await fixture.get("/healthz")
      #expect(health.status == 200)
      #expect(health.json?.keys.sorted() == ["status"])
      #expect(health.json?["status"]?.string == "ok")
    }
  }

  @Test func theMonitoringEndpointAnswersEveryCheckAndTheMetrics() async throws {
    try await ServeFixture.with { fixture in
      #expect(try await fixture.monitoring("/livez").status == 200)
      try await eventually(timeout: .seconds(20), "a 200 from /readyz") {
        try await fixture.monitoring("/readyz").status == 200
      }
      let ready = try await fixture.monitoring("/readyz")
      #expect(ready.json?["postgres"]?.string == "ok")
      #expect(ready.json?["nats"]?.string == "ok")
      _ = try await fixture.get("/nothing-here")
      let metrics = try await fixture.monitoring("/metrics")
      #expect(metrics.status == 200)
      #expect(
        metrics.text.contains(#"mowdeck_http_requests_total{route="unmatched",status="404"}"#))
      // The public port's 404s are not the monitoring endpoint's own requests.
      #expect(try await fixture.monitoring("/api/v1/notifications/inbox").status == 404)
    }
  }

  @Test func withoutPostgreSQLTheServerIsLiveButNotReady() async throws {
    try await ServeFixture.with(["MOWDECK_DATABASE_URL": "postgresql://postgres@127.0.0.1:1/none"])
    { fixture in
      #expect(try await fixture.monitoring("/livez").status == 200)
      #expect(try await fixture.get("/healthz").status == 200)
      let ready = try await fixture.monitoring("/readyz")
      #expect(ready.status == 503)
      #expect(ready.json?["postgres"]?.string == "unreachable")
    }
  }

  /// An older binary against a schema a newer one migrated: the serving process, which
  /// migrates in the background while it serves, still ends, with status 2 and one line.
  @Test func aSchemaNewerThanTheBuildStopsTheServingProcess() async throws {
    let db = try await TestDatabase.make()
    let known = try #require(Migration.all.map(\.version).max())
    try await db.pool.query(
      "INSERT INTO schema_migrations (version, name) VALUES (\(known + 1), 'from_a_newer_build')")
    var environment = try WorkerProcess.environment(
      database: db, subjectPrefix: uniqueSubjectPrefix())
    environment["MOWDECK_NOTIFICATIONS_HTTP_LISTEN"] = "127.0.0.1:0"
    let result = try await runCommand(
      "ImageServeWorker", [], environment: environment, timeout: .seconds(30))
    #expect(result.status == 2)
    let lines = result.output.split(separator: "\n").filter { !$0.hasPrefix("{") }
    #expect(lines.count == 1, "\(result.output)")
    #expect(lines.first?.hasPrefix("ImageServeWorker: ") == true)
    #expect(lines.first?.contains("version \(known + 1)") == true)
    #expect(lines.first?.contains("version \(known)") == true)
  }
}
