import FoundationEssentials
import Infrastructure

/// The loop every channel stage runs (ADR 0031): claims its platform's due deliveries (the
/// alarm's message and the photo's follow-up) with a lease, has its `PushChannel` send each,
/// and records the outcomes in groups, fenced by their leases: retried with backoff, failed
/// for good, or the device switched off with its `device.deactivated`.
public struct ChannelService<Channel: PushChannel>: Service {
  public let channel: Channel
  public let store: ChannelStore
  let outcomes: OutcomeWriter<ChannelStore>
  let nats: NATSClient
  let subjects: Subjects
  let photos: PhotoLinks
  let clock: any WallClock
  let logger: Logger
  let metrics: Metrics
  /// Due deliveries and recorded outcomes, for the gauges and `/healthz`.
  let progress: StageProgress
  let maxInFlight: Int

  public init(
    channel: Channel, store: ChannelStore, nats: NATSClient, subjects: Subjects,
    photos: PhotoLinks, clock: any WallClock, logger: Logger, metrics: Metrics,
    progress: StageProgress, maxInFlight: Int
  ) {
    self.channel = channel
    self.store = store
    self.outcomes = OutcomeWriter(store: store)
    self.nats = nats
    self.subjects = subjects
    self.photos = photos
    self.clock = clock
    self.logger = logger
    self.metrics = metrics
    self.progress = progress
    self.maxInFlight = maxInFlight
  }

  public func run() async throws {
    try await Migrator(pool: store.pool, logger: logger).migrateWhenReachable()
    let platform = channel.platform
    let doorbell = Doorbell()
    let listener = try doorbell.listen(
      to: subjects.wakeDeliveries, on: nats, queue: channel.workerName)
    defer { listener.cancel() }
    let inFlight = InFlightCounter()
    let measuring = Task {
      await store.leases.keepMeasuring(platform: platform, inFlight: inFlight, into: progress)
    }
    defer { measuring.cancel() }
    logger.info(
      "\(channel.displayName) worker running",
      ["images": photos.enabled, "max_in_flight": maxInFlight])
    await withDiscardingTaskGroup { group in
      // Stopping (graceful): no more claims; the pushes in flight end.
      let loop = ClaimLoop(
        what: "\(channel.displayName) deliveries", maxInFlight: maxInFlight, batchSize: 200,
        logger: logger)
      await loop.run(
        in: &group, doorbell: doorbell, inFlight: { await inFlight.value },
        claim: { try await store.claim(platform: platform, limit: $0) }
      ) { delivery, group in
        await inFlight.add(1)
        group.addTask {
          await deliver(delivery)
          // At the cap, claim again once half the pushes have ended, not at the next sweep;
          // and an alarm's own message with a photo may have let its follow-up go (the claim
          // holds a follow-up back until then).
          let atHalf = await inFlight.add(-1) == maxInFlight / 2
          if atHalf || !delivery.followup && delivery.imageID != nil { await doorbell.ring() }
        }
      }
    }
    channel.shutdown()
  }
}
