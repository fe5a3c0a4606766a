import Events
import FoundationEssentials
import Infrastructure

/// The fan-out stage: pulls alarms from the shared durable JetStream consumer, decides them
/// in transactions of one or many (`DecisionBatcher`), acknowledges each only after its
/// commit, then offers the deliveries to an APNs worker and rings the photo stage.
///
/// Alarms wait in one lane per mower (`AlarmLanes`): a mower's alarms in stream order, the
/// mowers independent of each other, and the fetch loop never waits for a lane. Errors are
/// classed (`DatabaseError.failureClass`): an outage is retried for as long as it lasts, an
/// alarm PostgreSQL refuses is rejected at once, and one that keeps failing in ways nobody
/// can class is rejected as `undecidable` after `maxAttempts`.
struct FanoutService: Service {
  let store: FanoutStore
  let batcher: DecisionBatcher
  let offers: DeliveryOffers
  let nats: NATSClient
  let subjects: Subjects
  let clock: any WallClock
  let logger: Logger
  let metrics: Metrics
  let progress: StageProgress
  /// Alarms held in memory at once, queued in lanes or being decided; the rest wait in
  /// JetStream. PostgreSQL work is bounded by the pool, not by this.
  let maxHeld: Int
  /// Mowers with alarms in hand beyond which the worker fetches no more: enough to keep
  /// every pooled connection busy while a fetch is under way, not so many that one replica
  /// takes what another, idle one could decide now. With 512 alarms held per replica, two
  /// replicas flat out decided the slowest 1 % of alarms after 2.6 s instead of 1.2 s
  /// (docs/benchmarks.md).
  let busyLanesWanted: Int
  let batchSize: Int
  let ackWaitSeconds: Int
  let streamReplicas: Int
  let maxAttempts: Int

  /// How often the consumer's backlog is read, which also notices a stream or consumer
  /// that disappeared.
  static let consumerCheckInterval: Duration = .seconds(2)

  func run() async throws {
    try await Migrator(pool: store.pool, logger: logger).migrateWhenReachable()
    let binding = ConsumerBinding(
      jetStream: JetStream(client: nats), subjects: subjects,
      ackWaitSeconds: Int64(ackWaitSeconds), streamReplicas: streamReplicas, logger: logger)
    var consumer = try await binding.bind()
    logger.info(
      "fan-out running", ["stream": subjects.alarmsStream, "consumer": subjects.fanoutConsumer])
    // Not a child task: stopping must not cancel the offers under way, or their deliveries
    // would wait out their lease. They are drained after the last decision, each within
    // the answer timeout and a release.
    let offering = Task { await offers.run() }
    let lanes = AlarmLanes()
    let room = Doorbell()
    await withDiscardingTaskGroup { group in
      var backoff = Backoff()
      var lastCheck = ContinuousClock.now
      // Stopping (graceful): no more fetches; the alarms held are decided, then it returns.
      while !GracefulShutdown.shouldStopTakingWork {
        if ContinuousClock.now - lastCheck >= Self.consumerCheckInterval {
          consumer = await binding.check(consumer, held: lanes, progress: progress, clock: clock)
          lastCheck = .now
        }
        // Fetching again once half the wanted lanes are idle, not after every decision: a
        // pull request per alarm cost as much CPU as the decision itself.
        let free = min(maxHeld - lanes.held, busyLanesWanted - lanes.busyLanes)
        guard free > 0, lanes.busyLanes <= busyLanesWanted / 2 else {
          await room.wait(timeout: .seconds(1))
          continue
        }
        let messages: [JetStreamMessage]
        do {
          messages = try await consumer.fetch(batch: min(free, batchSize), timeout: .seconds(1))
          backoff.reset()
        } catch {
          logger.warning("fetching alarms failed, retrying", ["error": error])
          // A fetch that fails may mean the stream or consumer is gone: look at once.
          lastCheck = .now - Self.consumerCheckInterval
          guard await backoff.wait() else { break }
          continue
        }
        for message in messages where lanes.add(message) {
          group.addTask { await runLane(from: message, lanes: lanes, room: room) }
        }
      }
    }
    offers.finish()
    await offering.value
  }

  /// Decides a mower's alarms one after another until its lane is empty.
  private func runLane(from first: JetStreamMessage, lanes: AlarmLanes, room: Doorbell) async {
    var next: JetStreamMessage? = first
    while let message = next {
      guard !Task.isCancelled else {
        // Stopping: what is left stays unacknowledged and JetStream delivers it again.
        lanes.abandon(message.subject)
        return
      }
      await handle(message)
      next = lanes.finish(message)
      await room.ring()
    }
  }

  /// Handles one message until it is committed or rejected; leaves it unacknowledged when
  /// stopped, so JetStream redelivers it.
  private func handle(_ message: JetStreamMessage) async {
    let started = ContinuousClock.now
    var backoff = Backoff(initial: 0.05, maximum: 2)
    var attempts = 0
    var lastTouched = started
    // The first attempt is decided with whatever else is waiting; after a failed batch the
    // alarm is decided alone, so that another alarm's fault never fails it twice.
    var inBatch = true
    while true {
      attempts += 1
      let failure: any Error
      do {
        let outcome = try await decide(message, inBatch: inBatch)
        acknowledge(message, outcome: outcome, started: started)
        return
      } catch let failed as GroupCommitFailed {
        // Not this alarm's attempt: it goes again at once, alone.
        logger.debug("a batch failed, deciding its alarms alone", ["error": failed])
        metrics.increment("mowdeck_fanout_batches_failed_total")
        attempts -= 1
        inBatch = false
        continue
      } catch {
        failure = error
      }
      let failureClass = (failure as? DatabaseError)?.failureClass ?? .unknown
      metrics.increment("mowdeck_fanout_failures_total", labels: ["class": failureClass.rawValue])
      // Earlier deliveries of this message failed too (on this replica or another).
      let tries = attempts + Int(message.deliveryCount > 1 ? message.deliveryCount - 1 : 0)
      if let rejection = rejection(after: failure, failureClass, tries: tries),
        let outcome = await recordRejection(rejection, of: message)
      {
        acknowledge(message, outcome: outcome, started: started)
        return
      }
      logger.warning(
        "deciding an alarm failed, retrying",
        [
          "error": failure, "class": failureClass.rawValue, "attempt": attempts,
          "subject": message.subject, "stream_seq": Int(message.streamSequence),
        ])
      // A long retry keeps its claim on the message, so no other replica takes it meanwhile.
      if ContinuousClock.now - lastTouched > .seconds(ackWaitSeconds) / 3 {
        try? message.inProgress()
        lastTouched = .now
      }
      guard await backoff.wait() else { return }
    }
  }

  /// One attempt at `message`, parsed once: a payload that does not read is rejected; an
  /// alarm goes through the batcher when asked, else in a transaction of its own.
  private func decide(_ message: JetStreamMessage, inBatch: Bool) async throws -> FanoutOutcome {
    let parsed = IngressAlarm.parse(
      subject: message.subject, subjects: subjects, payload: message.data)
    guard inBatch, case .success(let alarm) = parsed else {
      return try await store.handle(
        parsed, subject: message.subject, payload: message.data,
        streamSequence: message.streamSequence, receivedAt: clock.now(),
        storedAt: message.storedAt)
    }
    return try await batcher.decide(
      PendingAlarm(
        alarm: alarm, streamSequence: message.streamSequence, receivedAt: clock.now(),
        storedAt: message.storedAt))
  }

  /// Whether a failed attempt ends the message as rejected: at once when PostgreSQL refused
  /// its content, after `maxAttempts` when nobody can class the error, never in an outage.
  private func rejection(
    after failure: any Error, _ failureClass: DatabaseFailureClass, tries: Int
  ) -> IngressRejection? {
    switch failureClass {
    case .outage: return nil
    case .content:
      return (failure as? DatabaseError).map(IngressRejection.refused)
    case .unknown:
      return tries >= maxAttempts ? .undecidable(after: failure, attempts: tries) : nil
    }
  }

  /// Writes the rejection; nil when that failed too (the caller retries the whole message).
  private func recordRejection(_ rejection: IngressRejection, of message: JetStreamMessage) async
    -> FanoutOutcome?
  {
    do {
      let outcome = try await store.reject(
        rejection, subject: message.subject, payload: message.data,
        streamSequence: message.streamSequence)
      metrics.increment("mowdeck_fanout_rejected_total", labels: ["reason": rejection.reason])
      logger.warning(
        "alarm given up",
        [
          "reason": rejection.reason, "subject": message.subject,
          "details": [
            "error_class": rejection.errorClass, "sqlstate": rejection.sqlState,
            "constraint": rejection.constraint, "attempts": rejection.attempts,
          ] as [String: any Sendable],
        ])
      return outcome
    } catch {
      logger.warning("recording a rejection failed", ["error": error])
      return nil
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
    progress.progressed()
    let elapsed = ContinuousClock.now - started
    metrics.observe("mowdeck_fanout_decision_seconds", elapsed.seconds)
    metrics.increment("mowdeck_fanout_alarms_total", labels: ["outcome": outcome.kind.rawValue])
    // The deliveries go to an APNs worker directly; the photo stage gets a doorbell, a lost
    // one of which costs it its one-second sweep, nothing more.
    if let handoff = outcome.handoff { offers.offer(handoff) }
    if outcome.reservedImage { try? nats.publish(subjects.wakePhotos) }
    // Other platforms' deliveries are claimed, not handed off, and so are APNs' while the
    // handoffs are paused: ring now.
    if outcome.queuedForClaims { try? nats.publish(subjects.wakeDeliveries) }
    if outcome.handoffPaused {
      metrics.increment("mowdeck_fanout_handoffs_total", labels: ["answer": "paused"])
    }
    let decided = AlarmDecided(
      streamSequence: message.streamSequence, eventID: outcome.correlationID,
      outcome: outcome.kind.rawValue, mowerID: outcome.mowerID)
    try? nats.publish(subjects.alarmDecided, WireCoding.encode(decided))
    if outcome.kind == .rejected {
      logger.info(
        "alarm rejected",
        ["reason": outcome.detail, "correlation_id": outcome.correlationID])
    }
  }
}
