import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// Run one after another with the other suites of `EndToEndTests`: each starts a pipeline of
/// processes, and two at once starve the in-process servers of the other tests.
extension EndToEndTests {
  /// Hostile ingress published into a running pipeline (docs/interfaces.md#ingress-alarm): each
  /// case is decided as the interface says, and right after it a valid alarm of another mower is
  /// pushed within seconds; at the end every worker is alive and nothing is unacknowledged.
  @Suite struct HostileInputTests {
    /// What one hostile payload must come to.
    struct Case: Sendable, CustomStringConvertible {
      let name: String
      let mower: String
      let payload: [UInt8]
      let outcome: String
      /// The `reason` of `alarm.rejected`, for a rejection.
      let reason: String?
      var description: String { name }
    }

    static let probeMower = "m-7-0030"

    static func json(_ mower: String, _ fields: String, id: UUID = UUID()) -> [UInt8] {
      Array(
        """
        {"event_id": "\(id.uuidString.lowercased())", "mower_id": "\(mower)", \(fields)}
        """.utf8)
    }

    static let now = Timestamp.format(Date())

    static let cases: [Case] = {
      var cases: [Case] = []
      func add(
        _ name: String, _ mower: String, _ payload: [UInt8], _ outcome: String, _ reason: String?
      ) {
        cases.append(
          Case(name: name, mower: mower, payload: payload, outcome: outcome, reason: reason))
      }
      let kind = "\"kind\": \"battery_low\""
      add(
        "year 0000", "m-7-0001",
        json("m-7-0001", "\(kind), \"occurred_at\": \"0000-06-01T00:00:00Z\""), "rejected",
        "invalid_occurred_at")
      add(
        "30 February", "m-7-0002",
        json("m-7-0002", "\(kind), \"occurred_at\": \"2026-02-30T10:00:00Z\""), "rejected",
        "invalid_occurred_at")
      add(
        "year 9999", "m-7-0003",
        json("m-7-0003", "\(kind), \"occurred_at\": \"9999-12-31T23:59:59Z\""), "pushed", nil)
      add(
        "NUL in name", "m-7-0004",
        json("m-7-0004", "\(kind), \"occurred_at\": \"\(now)\", \"mower_name\": \"Rob\\u0000bie\""),
        "pushed", nil)
      add(
        "NUL in reason", "m-7-0005",
        json(
          "m-7-0005",
          "\"kind\": \"mower_stuck\", \"occurred_at\": \"\(now)\", \"reason\": \"trap\\u0000ped\""),
        "pushed", nil)
      add(
        "lone surrogate", "m-7-0006",
        json("m-7-0006", "\(kind), \"occurred_at\": \"\(now)\", \"mower_name\": \"\\ud800\""),
        "rejected", "invalid_json")
      add(
        "invalid UTF-8", "m-7-0007",
        json("m-7-0007", "\(kind), \"occurred_at\": \"\(now)\", \"mower_name\": \"Rob") + [
          0xC3, 0x28,
        ] + Array("\"}".utf8).dropFirst(0), "rejected", "invalid_json")
      add(
        "900 KB of reason", "m-7-0008",
        json(
          "m-7-0008",
          "\(kind), \"occurred_at\": \"\(now)\", \"reason\": \"\(String(repeating: "r", count: 900_000))\""
        ), "rejected", "payload_too_large")
      add(
        "50,000-deep nesting", "m-7-0009",
        json(
          "m-7-0009",
          "\(kind), \"occurred_at\": \"\(now)\", \"x\": \(String(repeating: "[", count: 50_000))\(String(repeating: "]", count: 50_000))"
        ), "rejected", "payload_too_large")
      add(
        "30,000-deep bare array, under 64 KiB", "m-7-0010",
        Array((String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)).utf8),
        "rejected", "nested_too_deep")
      add(
        "5,600-character name", "m-7-0011",
        json(
          "m-7-0011",
          "\"kind\": \"mower_lifted\", \"occurred_at\": \"\(now)\", \"mower_name\": \"\(String(repeating: "N", count: 5_600))\""
        ), "pushed", nil)
      add(
        "event_id a number", "m-7-0012",
        json2("m-7-0012", "\"event_id\": 5, \(kind), \"occurred_at\": \"\(now)\""), "rejected",
        "invalid_event_id")
      add(
        "mower_id a number", "m-7-0013",
        Array(
          "{\"event_id\": \"\(UUID().uuidString)\", \"mower_id\": 7, \(kind), \"occurred_at\": \"\(now)\"}"
            .utf8), "rejected", "invalid_mower_id")
      add(
        "kind an array", "m-7-0014", json("m-7-0014", "\"kind\": [], \"occurred_at\": \"\(now)\""),
        "rejected", "invalid_kind")
      add(
        "occurred_at a number", "m-7-0015",
        json("m-7-0015", "\(kind), \"occurred_at\": 1790000000"),
        "rejected", "invalid_occurred_at")
      add(
        "mower_name an object", "m-7-0016",
        json("m-7-0016", "\(kind), \"occurred_at\": \"\(now)\", \"mower_name\": {}"), "rejected",
        "invalid_mower_name")
      add(
        "reason a boolean", "m-7-0017",
        json("m-7-0017", "\(kind), \"occurred_at\": \"\(now)\", \"reason\": true"), "rejected",
        "invalid_reason")
      return cases
    }()

    /// A payload whose `event_id` is given in `fields` (of the wrong type).
    static func json2(_ mower: String, _ fields: String) -> [UInt8] {
      Array("{\"mower_id\": \"\(mower)\", \(fields)}".utf8)
    }

    @Test(.timeLimit(.minutes(3)))
    func eachHostileAlarmIsDecidedAndHoldsUpNoOtherMower() async throws {
      let db = try await TestDatabase.make()
      try await db.importFleet40()
      let base = try await PipelineProcesses.start(
        database: db, recordName: "hostile", appURL: "https://localhost",
        settings: [
          "MOWDECK_FANOUT_ACK_WAIT_SECONDS": "3",
          "MOWDECK_NOTIFICATIONS_PHOTO_TIMEOUT_SECONDS": "3",
        ],
        simulatorArguments: [])
      defer {
        base.simulator.stop()
        base.sandbox.process.stop()
      }
      let workers = try ["FanoutWorker", "FanoutWorker", "PhotoWorker", "APNsWorker"].map {
        try WorkerProcess($0, environment: base.environment)
      }
      defer { for worker in workers { worker.stop() } }
      let subjects = base.subjects
      let nats = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "hostile-test", logger: TestServers.logger)
      let publisher = try await AlarmPublisher(nats: nats, subjects: subjects, pool: db.pool)

      for hostile in Self.cases {
        let decided = try await publisher.publishAndWait(
          subject: subjects.alarm(mowerID: hostile.mower), payload: hostile.payload,
          timeout: .seconds(10))
        #expect(decided.outcome == hostile.outcome, "\(hostile)")
        if let reason = hostile.reason, let id = decided.eventID {
          let story = try await EventLog().story(of: id, pool: db.pool)
          #expect(
            try story.first?.decode(AlarmRejected.self).reason == reason, "\(hostile)")
        }
        // A valid alarm of another mower right after: decided and sent within seconds.
        let probe = UUID()
        let probeDecided = try await publisher.publishAndWait(
          subject: subjects.alarm(mowerID: Self.probeMower),
          payload: Self.json(
            Self.probeMower,
            "\"kind\": \"battery_low\", \"occurred_at\": \"\(Timestamp.format(Date()))\"", id: probe
          ),
          timeout: .seconds(10))
        #expect(probeDecided.outcome == "pushed", "probe after \(hostile)")
        try await eventually(timeout: .seconds(10), "the probe after \(hostile) sent") {
          try await EventLog().story(of: probe, pool: db.pool).contains {
            $0.type == "delivery.sent"
          }
        }
      }

      // What the accepted hostile alarms came to.
      let names = try await db.pool.query(
        "SELECT mower_id, mower_name, reason, decided_on FROM alarms WHERE mower_id IN ('m-7-0003', 'm-7-0004', 'm-7-0005', 'm-7-0011') ORDER BY mower_id"
      )
      #expect(names.count == 4)
      for row in names {
        switch try row.string("mower_id") {
        case "m-7-0003":
          // Far future clamped: decided on the receive time.
          #expect(abs(try row.date("decided_on").timeIntervalSinceNow) < 120)
        case "m-7-0004": #expect(try row.optionalString("mower_name") == "Robbie")
        case "m-7-0005": #expect(try row.optionalString("reason") == "trapped")
        default: #expect(try row.optionalString("mower_name") == String(repeating: "N", count: 64))
        }
      }
      // The long-named theft alarm reached the phone too.
      try await eventually(timeout: .seconds(10), "the long-named alarm's push") {
        try await db.count(
          """
          SELECT count(*) AS n FROM events e JOIN alarms a ON a.event_id = e.correlation_id
          WHERE a.mower_id = 'm-7-0011' AND e.type = 'delivery.sent'
          """) > 0
      }
      for worker in workers { #expect(worker.isRunning, "\(worker.name)") }
      try await eventually(timeout: .seconds(15), "nothing left unacknowledged") {
        let backlog = try await JetStream(client: nats).consumerBacklog(
          stream: subjects.alarmsStream, durable: subjects.fanoutConsumer)
        return backlog?.pending == 0 && backlog?.ackPending == 0
      }
    }
  }
}
