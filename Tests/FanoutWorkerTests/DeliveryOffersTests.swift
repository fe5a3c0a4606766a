import Events
import Foundation
import Infrastructure
import Synchronization
import TestSupport
import Testing

@testable import FanoutWorker

/// The fan-out's offer of a decision's leased deliveries to one APNs worker, over a real
/// nats-server: taken, they stay leased to that worker; declined, unanswered or with nobody
/// listening, they are released and the delivery doorbell rings, so a claim sends them at
/// once (ADR 0016).
@Suite struct DeliveryOffersTests {
  enum Worker: String, CaseIterable, Sendable {
    case taken, declined, silent, absent
  }

  /// A decision with two deliveries, offered once to `worker`; returns the deliveries still
  /// leased, the doorbell rings heard and the offer's metric label.
  static func offer(to worker: Worker) async throws -> (
    leased: Int, rings: Int, answer: String, gateOpen: Bool
  ) {
    // A pause longer than the test, so that the gate is still shut when it is looked at
    // however slowly the release and the doorbell went.
    var fixture = try await FanoutStoreTests.Fixture(
      users: 2, handoffGate: HandoffGate(pause: .seconds(120)))
    let handoff = try #require(try await fixture.send("mower_lifted", after: 0).handoff)
    let nats = try NATSClient.connect(
      url: try TestServers.natsURL(), name: "offers-tests", logger: TestServers.logger)
    defer { nats.close() }
    let subjects = Subjects(prefix: uniqueSubjectPrefix())
    let rings = Mutex(0)
    let doorbell = try nats.subscribe(subjects.wakeDeliveries)
    let listening = Task { for await _ in doorbell { rings.withLock { $0 += 1 } } }
    defer { listening.cancel() }
    let start = Date()
    var responder: Task<Void, Never>?
    if worker != .absent {
      let offers = try nats.subscribe(subjects.deliveryHandoff, queue: "APNsWorker")
      responder = Task {
        for await message in offers where worker != .silent {
          let offered = try? DeliveryHandoff.decode(message.data)
          #expect(offered?.deliveries == handoff.deliveries)
          // Answer by half the fan-out's own timeout after sending (ADR 0016).
          #expect(offered?.answerBy.map { $0 > start && $0 <= Date() + 0.15 } == true)
          try? nats.publish(message.reply ?? "", Array(worker.rawValue.utf8))
        }
      }
    }
    defer { responder?.cancel() }
    try await nats.flush()

    let metrics = Metrics()
    let offers = DeliveryOffers(
      store: fixture.store, nats: nats, subjects: subjects, logger: TestServers.logger,
      metrics: metrics, clock: SystemClock(), answerTimeout: .milliseconds(300))
    async let running: Void = offers.run()
    offers.offer(handoff)
    offers.finish()
    await running

    let leased = try await fixture.db.count(
      "SELECT count(*) AS n FROM deliveries WHERE lease_token IS NOT NULL AND attempts = 1")
    if leased == 0 {
      try await eventually(timeout: .seconds(5), "the doorbell") { rings.withLock { $0 } > 0 }
    }
    let answers = ["taken", "declined", "timeout", "no_worker", "failed"]
    let answer = answers.first {
      metrics.counter("mowdeck_fanout_handoffs_total", labels: ["answer": $0]) == 1
    }
    return (leased, rings.withLock { $0 }, answer ?? "none", fixture.store.handoffGate.isOpen())
  }

  @Test func takenDeliveriesStayLeasedToTheWorker() async throws {
    let result = try await Self.offer(to: .taken)
    #expect(result.leased == 2)
    #expect(result.rings == 0)
    #expect(result.answer == "taken")
    #expect(result.gateOpen)
  }

  @Test(arguments: [(Worker.declined, "declined"), (.silent, "timeout"), (.absent, "no_worker")])
  func deliveriesNoWorkerTookAreReleasedAndTheDoorbellRings(worker: Worker, answer: String)
    async throws
  {
    let result = try await Self.offer(to: worker)
    #expect(result.leased == 0)
    #expect(result.rings == 1)
    #expect(result.answer == answer)
    // The next decisions leave their APNs deliveries for the claims (ADR 0046).
    #expect(!result.gateOpen)
  }
}
