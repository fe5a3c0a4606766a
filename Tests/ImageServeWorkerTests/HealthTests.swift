import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// `/healthz`, `/metrics` (on the monitoring endpoint), and what the server answers while
/// PostgreSQL is away.
@Suite struct HealthTests {
  @Test func healthzIs200WhenPostgreSQLAndNATSAnswer() async throws {
    try await ServeFixture.with { fixture in
      // The server lives in the test process: with the whole suite running on two cores,
      // a check can miss its 3 s deadline and rightly answer 503. Healthy means it
      // answers 200 once the machine lets it, not at the first try.
      var response: RawResponse?
      try await eventually(timeout: .seconds(20), "a 200 from /healthz") {
        response = try await fixture.monitoring("/healthz")
        return response?.status == 200
      }
      #expect(response?.json?["postgres"]?.string == "ok")
      #expect(response?.json?["nats"]?.string == "ok")
    }
  }

  @Test func withoutPostgreSQLGenuineRequestsAre503AndForgedOnesStill404() async throws {
    let db = try await TestDatabase.make()
    let alarm: ServeFixture.Seeded
    do {
      // Rows written while the database is there, then a server that cannot reach it.
      let writer = try await ServeFixture.make([:], database: db)
      try await writer.seedDirectory()
      alarm = try await writer.seedAlarm(photo: .captured(TestPhotos.small))
      await writer.service.stop()
    }
    try await ServeFixture.with(
      ["MOWDECK_DATABASE_URL": "postgresql://postgres@127.0.0.1:1/none"], database: db
    ) { fixture in
      let genuine = try await fixture.get(fixture.pushTarget(alarm.notificationID))
      #expect(genuine.status == 503)
      let forged = fixture.pushTarget(alarm.notificationID, signer: ImageURLSigner(key: [1, 2, 3]))
      #expect(try await fixture.get(forged).status == 404)
      #expect(
        try await fixture.get(fixture.pushTarget(alarm.notificationID, expiresIn: -1)).status == 410
      )
      let token = String(repeating: "a", count: 64)
      #expect(
        try await fixture.get(
          InboxRoutes.listPattern, headers: ["Authorization": "Bearer \(token)"]
        )
        .status == 503)
      let health = try await fixture.monitoring("/healthz")
      #expect(health.status == 503)
      #expect(health.json?["postgres"]?.string == "unreachable")
      #expect(health.json?["nats"]?.string == "ok")
    }
  }

  @Test func metricsCountRequestsByRouteAndStatusWithLatencies() async throws {
    try await ServeFixture.with { fixture in
      try await fixture.seedDirectory()
      let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.small))
      _ = try await fixture.get(fixture.pushTarget(alarm.notificationID))
      _ = try await fixture.get(fixture.pushTarget(UUID(), expiresIn: -1))
      _ = try await fixture.get("/nothing-here")
      let response = try await fixture.monitoring("/metrics")
      #expect(response.status == 200)
      #expect(response.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
      let text = response.text
      let route = PushImageRoute.pattern
      #expect(text.contains(#"mowdeck_http_requests_total{route="\#(route)",status="200"} 1.0"#))
      #expect(text.contains(#"mowdeck_http_requests_total{route="\#(route)",status="410"} 1.0"#))
      #expect(text.contains(#"mowdeck_http_requests_total{route="unmatched",status="404"} 1.0"#))
      #expect(text.contains(#"mowdeck_http_request_seconds_count{route="\#(route)"} 2"#))
      #expect(text.contains(#"mowdeck_images_served_total{route="push"} 1.0"#))
      #expect(text.contains("# TYPE mowdeck_http_request_seconds histogram"))
    }
  }
}
