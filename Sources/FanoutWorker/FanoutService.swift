import Events
import FoundationEssentials

/// The fan-out stage: pulls alarms from the shared durable JetStream consumer, decides each
/// in one transaction, acknowledges only after the commit, then offers the deliveries to
/// an APNs worker and rings the photo stage.
struct FanoutService: Service {
  let store: FanoutStore
  let offers: DeliveryOffers
  let nats: NATSClient
  let subjects: Subjects
  let clock: any WallClock
  let logger: Logger
  let metrics: Metrics
  /// Messages decided at once; different mowers only (one mower's alarms go in order).
  let concurrency: Int
  let batchSize: Int
  let ackWaitSeconds: Int

  func run() async throws {
    try await Migrator(pool: store.pool, logger: logger).migrateWhenReachable()
    let consumer = try await connectConsumer()
    logger.info(
      "fan-out running", ["stream": subjects.alarmsStream, "consumer": subjects.fanoutConsumer])
    // Not a child task: stopping must not cancel the offers under way, or their deliveries
    // would wait out their lease. They are drained after the last decision, each within
    // the answer timeout and a release.
    let offering = Task { await offers.run() }
    var backoff = Backoff()
    while !Task.isCancelled {
      let messages: [JetStreamMessage]
      do {
        messages = try await consumer.fetch(batch: batchSize, timeout: .seconds(1))
        backoff.reset()
      } catch {
        logger.warning("fetching alarms failed, retrying", ["error": error])
        guard await backoff.wait() else { break }
        continue
      }
      guard !messages.isEmpty else { continue }
      await process(messages)
    }
    offers.finish()
    await offering.value
  }

  private func connectConsumer() async throws -> PullConsumer {
    var backoff = Backoff(initial: 0.2, maximum: 5)
    while true {
      do {
        let jetStream = JetStream(client: nats)
        try await jetStream.ensureStream(
          name: subjects.alarmsStream, subjects: [subjects.alarmsWildcard])
        return try await jetStream.pullConsumer(
          stream: subjects.alarmsStream, durable: subjects.fanoutConsumer,
          filter: subjects.alarmsWildcard, ackWaitSeconds: Int64(ackWaitSeconds))
      } catch {
        logger.warning("JetStream not ready, retrying", ["error": error])
        guard await backoff.wait() else { throw CancellationError() }
      }
    }
  }

  /// Decides a batch: one mower's messages in stream order, different mowers in parallel.
  private func process(_ messages: [JetStreamMessage]) async {
    var lanes: [String: [JetStreamMessage]] = [:]
    var order: [String] = []
    for message in messages {
      if lanes[message.subject] == nil { order.append(message.subject) }
      lanes[message.subject, default: []].append(message)
    }
    await withTaskGroup(of: Void.self) { group in
      var running = 0
      for subject in order {
        if running >= concurrency {
          await group.next()
          running -= 1
        }
        let lane = lanes[subject] ?? []
        group.addTask {
          for message in lane { await handle(message) }
        }
        running += 1
      }
    }
  }

  /// Handles one message until it is committed; retries outside failures with backoff and
  /// leaves the message unacknowledged when stopped, so JetStream redelivers it.
  private func handle(_ message: JetStreamMessage) async {
    let started = ContinuousClock.now
    var backoff = Backoff(initial: 0.05, maximum: 2)
    while true {
      do {
        let outcome = try await store.handle(
          subject: message.subject, payload: message.data,
          streamSequence: message.streamSequence, receivedAt: clock.now())
        acknowledge(message, outcome: outcome, started: started)
        return
      } catch {
        metrics.increment("mowdeck_fanout_failures_total")
        logger.warning(
          "deciding an alarm failed, retrying",
          ["error": error, "stream_seq": Int(message.streamSequence)])
        guard await backoff.wait() else { return }
      }
    }
  }

  private func acknowledge(
    _ message: JetStreamMessage, outcome: FanoutOutcome, started: ContinuousClock.Instant
  ) {
    do {
      try message.ack()
    } catch {
      // Harmless: the redelivery finds its ingress record and changes nothing.
      logger.warning("ack failed", ["error": error, "stream_seq": Int(message.streamSequence)])
    }
    let elapsed = ContinuousClock.now - started
    metrics.observe("mowdeck_fanout_decision_seconds", elapsed.seconds)
    metrics.increment("mowdeck_fanout_alarms_total", labels: ["outcome": outcome.kind.rawValue])
    // The deliveries go to an APNs worker directly; the photo stage gets a doorbell, a lost
    // one of which costs it its one-second sweep, nothing more.
    if let handoff = outcome.handoff { offers.offer(handoff) }
    if outcome.reservedImage { try? nats.publish(subjects.wakePhotos) }
    let decided: [String: Any] = [
      "stream_seq": Int(message.streamSequence),
      "event_id": outcome.correlationID.uuidString.lowercased(),
      "outcome": outcome.kind.rawValue, "mower_id": outcome.mowerID ?? JSON.null,
    ]
    try? nats.publish(subjects.alarmDecided, Array(JSON.encode(decided).utf8))
    if outcome.kind == .rejected {
      logger.info(
        "alarm rejected",
        ["reason": outcome.detail, "correlation_id": outcome.correlationID])
    }
  }
}
