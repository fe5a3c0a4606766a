import Events
import FoundationEssentials
import Infrastructure

/// The fan-out's hold on the alarms stream and its durable consumer: binds to them at start, reads
/// the consumer's backlog every few seconds for the gauges and the stall check, and re-creates
/// stream and consumer when they disappeared (nats-server restarted on empty storage, a stream
/// deleted by mistake), without a restart (docs/interfaces.md#ingress-alarm). Whichever replica
/// notices first re-creates them; the others find them there.
struct ConsumerBinding: Sendable {
  let jetStream: JetStream
  let subjects: Subjects
  let ackWaitSeconds: Int64
  /// Copies of the stream (`MOWDECK_JETSTREAM_REPLICAS`); the fan-out owns the stream and
  /// sets them on an existing one too.
  let streamReplicas: Int
  let logger: Logger

  /// Creates what is missing and binds, retrying while NATS or JetStream is not ready.
  func bind() async throws -> PullConsumer {
    var backoff = Backoff(initial: 0.2, maximum: 5)
    while true {
      do {
        return try await bindOnce()
      } catch {
        logger.warning("JetStream not ready, retrying", ["error": error])
        guard await backoff.wait() else { throw CancellationError() }
      }
    }
  }

  private func bindOnce() async throws(NATSError) -> PullConsumer {
    try await jetStream.ensureStream(
      name: subjects.alarmsStream, subjects: [subjects.alarmsWildcard],
      replicas: streamReplicas, adjustReplicas: true)
    return try await jetStream.pullConsumer(
      stream: subjects.alarmsStream, durable: subjects.fanoutConsumer,
      filter: subjects.alarmsWildcard, ackWaitSeconds: ackWaitSeconds)
  }

  /// Reads the backlog into the gauges and `progress`; returns a new consumer when the old
  /// one's stream or consumer was gone, else `consumer` itself.
  func check(
    _ consumer: PullConsumer, held: AlarmLanes, progress: StageProgress, clock: any WallClock
  ) async -> PullConsumer {
    let backlog: JetStream.ConsumerBacklog?
    do {
      backlog = try await jetStream.consumerBacklog(
        stream: subjects.alarmsStream, durable: subjects.fanoutConsumer)
    } catch {
      // NATS away: the connection's own log says so; try again at the next check.
      logger.debug("reading the consumer's backlog failed", ["error": error])
      return consumer
    }
    let metrics = progress.metrics
    guard let backlog else {
      logger.warning(
        "alarms stream or consumer missing, re-creating them",
        ["stream": subjects.alarmsStream, "consumer": subjects.fanoutConsumer])
      metrics.increment("mowdeck_fanout_consumer_recreated_total")
      do {
        let rebound = try await bindOnce()
        logger.info("alarms stream and consumer re-created")
        return rebound
      } catch {
        logger.warning("re-creating the alarms consumer failed, retrying", ["error": error])
        return consumer
      }
    }
    metrics.set("mowdeck_fanout_consumer_pending", Double(backlog.pending))
    metrics.set("mowdeck_fanout_consumer_ack_pending", Double(backlog.ackPending))
    let oldest = held.oldestStoredAt.map { clock.now().timeIntervalSince($0) } ?? 0
    progress.waiting(held.held + Int(backlog.pending), oldestAgeSeconds: oldest)
    return consumer
  }
}
