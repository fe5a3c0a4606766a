import Events
import FoundationEssentials
import Infrastructure

extension PhotoService {
  /// Stores `result`; how it goes on when that fails depends on why (`StoreAttempts`):
  /// - while PostgreSQL is away, the same outcome is retried with backoff, for as long as
  ///   it takes (the photo stays held: the retry needs it);
  /// - when PostgreSQL refuses what the outcome holds (or keeps failing in a way nobody
  ///   classified), the reservation ends at once as `store_rejected`, a marker without
  ///   the refused content, so that the phone's URL answers "never";
  /// - should even that marker be refused, the outcome is given up with an error log: the
  ///   lease is no longer renewed and lapses, and nothing loops here.
  /// Also returns when the task is cancelled (the worker stops): the lease then lapses and
  /// another worker takes the reservation over.
  func commit(_ claim: PhotoClaim, _ result: PhotoResult, latency: Double) async {
    var outcome = result
    var attempts = StoreAttempts()
    var backoff = Backoff(initial: 0.1, maximum: 2)
    let replied = ContinuousClock.now
    // The first attempt is written with whatever else is waiting; after a failed group the
    // outcome is written alone, so that another photo's fault never fails it twice.
    var grouped = true
    while true {
      do {
        let completion: PhotoStore.Completion
        if grouped {
          completion = try await completer.commit(
            PhotoCompletion(claim: claim, result: outcome, latencySeconds: latency))
        } else {
          completion = try await store.complete(claim, result: outcome, latencySeconds: latency)
        }
        // The follow-ups' workers sweep each second; the doorbell sends them now.
        if case .stored(let followUps) = completion, followUps > 0 {
          try? nats.publish(subjects.wakeDeliveries)
        }
        record(claim, outcome, completion, latency, store: (ContinuousClock.now - replied).seconds)
        return
      } catch let failed as GroupCommitFailed {
        // Not this outcome's attempt: it goes again at once, alone.
        logger.debug("a group of photo outcomes failed, storing them alone", ["error": failed])
        metrics.increment("mowdeck_photo_store_groups_failed_total")
        grouped = false
      } catch {
        let failure = StoreAttempts.failureClass(of: error)
        let fields: [String: any Sendable] = [
          "error": error, "image_id": claim.imageID, "failure_class": failure.rawValue,
        ]
        switch attempts.next(after: failure) {
        case .retry:
          logger.warning("storing a photo outcome failed, retrying", fields)
          guard await backoff.wait() else { return }
        case .storeRejection:
          logger.warning("PostgreSQL refused a photo outcome; storing it as store_rejected", fields)
          outcome = .failed(
            .storeRejected, detail: StoreAttempts.rejectionDetail(refusing: outcome, error: error))
          backoff.reset()
        case .giveUp:
          logger.error(
            "storing the store_rejected marker failed too; giving the photo up, its lease will lapse",
            fields)
          metrics.increment("mowdeck_photo_outcomes_total", labels: ["outcome": "given_up"])
          return
        }
      }
    }
  }

  /// - Parameter store: seconds from the camera's answer to the committed row.
  private func record(
    _ claim: PhotoClaim, _ result: PhotoResult, _ completion: PhotoStore.Completion,
    _ latency: Double, store: Double
  ) {
    let outcome: String
    switch result {
    case .captured: outcome = "captured"
    case .failed(let reason, _): outcome = reason.rawValue
    }
    metrics.observe("mowdeck_photo_store_seconds", store)
    metrics.increment(
      "mowdeck_photo_outcomes_total",
      labels: ["outcome": completion == .stale ? "stale" : outcome])
    logger.debug(
      "photo outcome",
      [
        "image_id": claim.imageID, "mower_id": claim.mowerID, "outcome": outcome,
        "stored": completion != .stale, "latency_ms": Int(latency * 1000),
        "store_us": Int(store * 1_000_000),
      ])
  }
}
