import Events
import FoundationEssentials
import Infrastructure

/// Retention for the whole installation: photos and failure markers past their time or
/// beyond the newest 200; events, and old alarms with their inbox items, deliveries and
/// reservations, older than the configured age (ADR 0011, 0018). Runs at start and every
/// prune interval; one replica at a time holds the prune lease.
struct PruneService: Service {
  let pool: DatabasePool
  let images: ImageStore
  let events: EventRetention
  let history: HistoryRetention
  let lease: WorkerLease
  let intervalSeconds: Int
  let logger: Logger
  let metrics: Metrics

  func run() async throws {
    try await Migrator(pool: pool, logger: logger).migrateWhenReachable()
    logger.info(
      "prune worker running",
      [
        "interval_s": intervalSeconds, "events_max_age_s": events.maximumAgeSeconds,
        "alarms_max_age_s": history.maximumAgeSeconds, "batch": events.batchSize,
      ])
    while !GracefulShutdown.shouldStopTakingWork {
      do {
        try await pass()
      } catch is CancellationError {
        break
      } catch {
        logger.warning("prune pass failed; next pass at the next interval", ["error": error])
      }
      _ = await GracefulShutdown.sleep(for: .seconds(intervalSeconds))
    }
    try? await lease.release()
  }

  /// One pass. Stops between batches when the task is cancelled (SIGTERM): a batch is one
  /// transaction, so stopping never leaves half a batch.
  func pass() async throws {
    guard try await lease.acquire() else {
      logger.info("another replica holds the prune lease; skipping this pass")
      return
    }
    do {
      try await prunePhotosAndHistory()
    } catch {
      try? await lease.release()
      throw error
    }
    try? await lease.release()
  }

  private func prunePhotosAndHistory() async throws {
    let removal = try await pool.withTransaction { tx in try images.enforceRetention(tx) }
    metrics.increment(
      "mowdeck_prune_images_total", by: Double(removal.expired), labels: ["why": "expired"])
    metrics.increment(
      "mowdeck_prune_images_total", by: Double(removal.pruned), labels: ["why": "pruned"])
    logger.info(
      "photos pruned",
      [
        "expired": removal.expired, "beyond_keep": removal.pruned,
        "bytes_freed": removal.bytesFreed,
      ])
    // Each step drains its tables in batches, each batch its own short transaction.
    let steps: [(what: String, batchSize: Int, batch: () async throws -> Int)] = [
      (
        "events", events.batchSize,
        {
          let removed = try await events.pruneBatch()
          metrics.increment("mowdeck_prune_events_total", by: Double(removed))
          return removed
        }
      ),
      (
        "alarms", history.alarmsPerBatch,
        {
          let removal = try await history.pruneAlarmBatch()
          metrics.increment("mowdeck_prune_alarms_total", by: Double(removal.alarms))
          metrics.increment("mowdeck_prune_inbox_items_total", by: Double(removal.inboxItems))
          if removal.unfinished > 0 {
            metrics.increment("mowdeck_prune_unfinished_total", by: Double(removal.unfinished))
            logger.warning(
              "removed old alarms whose deliveries or photos no worker ever finished",
              ["unfinished": removal.unfinished, "alarms": removal.alarms])
          }
          return removal.alarms
        }
      ),
      (
        "handled messages", history.messagesPerBatch,
        {
          let removed = try await history.pruneIngressBatch()
          metrics.increment("mowdeck_prune_ingress_messages_total", by: Double(removed))
          return removed
        }
      ),
    ]
    for step in steps {
      // Renewed at each step too: steps shorter than the drain's report interval would
      // otherwise add up past the lease (15 s) unrenewed.
      guard try await lease.acquire() else {
        logger.warning("lost the prune lease; stopping this pass")
        return
      }
      guard try await drain(step.what, batchSize: step.batchSize, batch: step.batch) else { return }
    }
  }

  /// Runs `batch` until one removes less than a full batch or the task is cancelled,
  /// reporting progress every few seconds and renewing the lease. False: the pass stops
  /// here (the lease was lost, or the worker is stopping).
  private func drain(_ what: String, batchSize: Int, batch: () async throws -> Int)
    async throws -> Bool
  {
    let started = ContinuousClock.now
    var total = 0
    var batches = 0
    var lastReport = started
    while !GracefulShutdown.shouldStopTakingWork {
      let removed = try await batch()
      total += removed
      batches += 1
      if removed < batchSize { break }
      // Long work: say how far it got every few seconds, and keep the lease.
      if ContinuousClock.now - lastReport > .seconds(5) {
        lastReport = .now
        let rate = Double(total) / (ContinuousClock.now - started).seconds
        logger.info(
          "pruning \(what)", ["removed": total, "batches": batches, "per_second": Int(rate)])
        guard try await lease.acquire() else {
          logger.warning("lost the prune lease; stopping this pass")
          return false
        }
      }
    }
    logger.info(
      "\(what) pruned",
      [
        "removed": total, "batches": batches, "seconds": (ContinuousClock.now - started).seconds,
        "stopped_early": GracefulShutdown.shouldStopTakingWork,
      ])
    return !GracefulShutdown.shouldStopTakingWork
  }
}
