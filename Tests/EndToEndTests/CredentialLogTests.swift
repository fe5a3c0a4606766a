import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Run one after another with the other suites of `EndToEndTests`: each starts a pipeline of
/// processes, and two at once starve the in-process servers of the other tests.
extension EndToEndTests {
  /// No log line carries a credential (docs/interfaces.md#event-log): a whole pipeline whose NATS
  /// and PostgreSQL URLs both hold a password runs an alarm end to end, while one more worker
  /// points at servers that do not answer, so that the URLs are logged as they are retried.
  @Suite struct CredentialLogTests {
    static let natsSecret = "natsPassw0rdXyz"
    static let postgresSecret = "pgPassw0rdQrs"

    @Test(.timeLimit(.minutes(2)))
    func logsOfAFullRunHoldNeitherPassword() async throws {
      let db = try await TestDatabase.make()
      try await db.importFleet40()
      let natsURL = try Self.withUserinfo(TestServers.natsURL(), "mowdeck:\(Self.natsSecret)")
      // The test server trusts local connections, so the password is sent and ignored.
      let databaseURL = db.url.replacingOccurrences(
        of: "://postgres@", with: "://postgres:\(Self.postgresSecret)@")
      #expect(databaseURL.contains(Self.postgresSecret))
      let base = try await PipelineProcesses.start(
        database: db, recordName: "credentials", appURL: "https://localhost",
        settings: [
          "MOWDECK_NATS_URL": natsURL, "MOWDECK_DATABASE_URL": databaseURL,
          "MOWDECK_NOTIFICATIONS_PHOTO_TIMEOUT_SECONDS": "3", "MOWDECK_LOG_LEVEL": "debug",
        ],
        simulatorArguments: [])
      var processes = [base.simulator, base.sandbox.process]
      defer { for process in processes { process.stop() } }
      for name in ["FanoutWorker", "PhotoWorker", "APNsWorker", "ImageServeWorker", "PruneWorker"] {
        processes.append(try WorkerProcess(name, environment: base.environment))
      }
      // One more, pointed at servers that are not there: it logs what it retries.
      var unreachable = base.environment
      let deadPort = try freePort()
      unreachable["MOWDECK_NATS_URL"] = "nats://mowdeck:\(Self.natsSecret)@127.0.0.1:\(deadPort)"
      unreachable["MOWDECK_DATABASE_URL"] =
        "postgresql://mowdeck:\(Self.postgresSecret)@127.0.0.1:\(deadPort)/mowdeck"
      let stranded = try WorkerProcess("FanoutWorker", environment: unreachable)
      processes.append(stranded)

      let nats = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "credentials-test", logger: TestServers.logger)
      let publisher = try await AlarmPublisher(nats: nats, subjects: base.subjects, pool: db.pool)
      let id = UUID()
      let payload = JSON.encode([
        "event_id": .string(id.uuidString.lowercased()), "mower_id": "m-7-0008",
        "kind": "mower_lifted",
        "occurred_at": .string(Timestamp.format(Date())),
      ])
      let decided = try await publisher.publishAndWait(
        subject: base.subjects.alarm(mowerID: "m-7-0008"), payload: Array(payload.utf8),
        timeout: .seconds(20))
      // "decided" when the fan-out's notice came late and the database was asked instead.
      #expect(["pushed", "decided"].contains(decided.outcome))
      try await eventually(timeout: .seconds(20), "the pushes sent and the photo ended") {
        let story = try await EventLog().story(of: id, pool: db.pool).map(\.type)
        return story.contains("delivery.sent")
          && (story.contains("photo.captured") || story.contains("photo.failed"))
      }
      try await eventually(timeout: .seconds(10), "the stranded worker to log its retries") {
        stranded.log.contains("NATS not reachable yet")
      }
      let everyone = processes
      for process in everyone { process.stop() }
      processes = []

      let all = everyone.map(\.log).joined()
      #expect(all.contains("alarm") && all.contains("PhotoWorker") && all.contains("APNsWorker"))
      #expect(!all.contains(Self.natsSecret))
      #expect(!all.contains(Self.postgresSecret))
      // The URLs were logged, without their userinfo.
      #expect(stranded.log.contains("nats://***@127.0.0.1:\(deadPort)"))
    }

    /// `nats://host:port` with `userinfo@` put in front of the host.
    static func withUserinfo(_ url: String, _ userinfo: String) -> String {
      url.replacingOccurrences(of: "://", with: "://\(userinfo)@")
    }
  }
}
