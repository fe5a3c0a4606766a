import Events
import FoundationEssentials
import Infrastructure

/// Offers each committed decision's deliveries to one APNs worker (ADR 0016), off the
/// fan-out's own path: `offer` only queues, so the next alarm never waits for an answer.
///
/// A worker answers `taken` once it has started the pushes. Any other end (declined at its
/// in-flight cap, no worker listening, no answer in time, NATS down) releases the leases
/// and rings the delivery doorbell, so the deliveries are claimed at once; if even the
/// release fails, their lease lapses and the sweep sends them then.
struct DeliveryOffers: Sendable {
  let store: FanoutStore
  let nats: NATSClient
  let subjects: Subjects
  let logger: Logger
  let metrics: Metrics
  let clock: any WallClock
  /// How long a worker has to answer. A worker that took the offer but answered later sends
  /// the push twice at worst, which the collapse id makes one notification on the phone.
  let answerTimeout: Duration

  private let queue: AsyncStream<DeliveryHandoff>
  private let continuation: AsyncStream<DeliveryHandoff>.Continuation

  init(
    store: FanoutStore, nats: NATSClient, subjects: Subjects, logger: Logger, metrics: Metrics,
    clock: any WallClock, answerTimeout: Duration = .seconds(2)
  ) {
    self.clock = clock
    self.answerTimeout = answerTimeout
    self.store = store
    self.nats = nats
    self.subjects = subjects
    self.logger = logger
    self.metrics = metrics
    (queue, continuation) = AsyncStream.makeStream()
  }

  func offer(_ handoff: DeliveryHandoff) { continuation.yield(handoff) }

  /// No more offers: `run` returns once the queued ones have ended.
  func finish() { continuation.finish() }

  /// Sends the offers, each on its own, until `finish`.
  func run() async {
    await withDiscardingTaskGroup { group in
      for await handoff in queue {
        group.addTask { await hand(handoff) }
      }
    }
  }

  private func hand(_ handoff: DeliveryHandoff) async {
    var offer = handoff
    offer.answerBy = clock.now().addingTimeInterval(answerTimeout.seconds / 2)
    let refusal: String
    do {
      let answer = try await nats.request(
        subjects.deliveryHandoff, offer.encoded, timeout: answerTimeout)
      if String(decoding: answer.data, as: UTF8.self) == DeliveryHandoff.Answer.taken.rawValue {
        metrics.increment("mowdeck_fanout_handoffs_total", labels: ["answer": "taken"])
        return
      }
      refusal = "declined"
    } catch .noResponders {
      refusal = "no_worker"
    } catch .timeout {
      refusal = "timeout"
    } catch {
      refusal = "failed"
      logger.warning(
        "offering deliveries to the APNs stage failed",
        ["error": error, "event_id": handoff.eventID])
    }
    metrics.increment("mowdeck_fanout_handoffs_total", labels: ["answer": refusal])
    store.handoffGate.refused()
    do {
      try await store.release(handoff)
      try? nats.publish(subjects.wakeDeliveries)
    } catch {
      logger.warning(
        "releasing deliveries no APNs worker took failed; they go when their lease lapses",
        ["error": error, "event_id": handoff.eventID, "refusal": refusal])
    }
  }
}
