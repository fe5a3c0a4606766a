import Events
import FoundationEssentials

/// The photo stage: claims reservations, asks each mower's camera once, and stores the
/// photo or a failure marker. Many requests are in flight at once, none holding a thread.
/// The answered photos waiting for PostgreSQL are held up to a byte budget; a photo that
/// would pass it is shed, recorded as failed (ADR 0019).
struct PhotoService: Service {
  /// The gauge of answered photos waiting for their commit, and the budget's level:
  /// beyond its baseline, what the worker's memory holds. One that stays near the budget
  /// means PostgreSQL takes photos more slowly than the cameras answer.
  static let heldBytes = "mowdeck_photo_held_bytes"

  let store: PhotoStore
  let nats: NATSClient
  let subjects: Subjects
  let logger: Logger
  let metrics: Metrics
  let maxInFlight: Int
  /// The most bytes of answered photos held while they wait for the store.
  let maxHeldBytes: Int
  let photoTimeoutSeconds: Int
  let shedding: ThrottledWarning
  let migrate: @Sendable () async throws -> Void

  func run() async throws {
    try await migrate()
    let doorbell = Doorbell()
    let listener = try doorbell.listen(to: subjects.wakePhotos, on: nats, queue: "PhotoWorker")
    defer { listener.cancel() }
    let inFlight = LeasesInFlight()
    // Every two fifths of the lease, the leases of the requests in flight, in one statement.
    let renewer = Task {
      await inFlight.keepRenewing(
        every: .milliseconds(Int(store.leaseSeconds * 400)), logger: logger, what: "photo leases"
      ) { try await store.renew($0) }
    }
    defer { renewer.cancel() }
    metrics.describe(
      Self.heldBytes, type: "gauge", help: "Bytes of photos answered by cameras and not yet stored."
    )
    metrics.set(Self.heldBytes, 0)
    logger.info(
      "photo worker running", ["max_in_flight": maxInFlight, "max_held_bytes": maxHeldBytes])
    await withDiscardingTaskGroup { group in
      var backoff = Backoff()
      while !Task.isCancelled {
        let room = maxInFlight - (await inFlight.count)
        var claimed: [PhotoClaim] = []
        if room > 0 {
          do {
            claimed = try await store.claim(limit: min(room, 200))
            backoff.reset()
          } catch {
            logger.warning("claiming photo reservations failed, retrying", ["error": error])
            guard await backoff.wait() else { break }
            continue
          }
        }
        for claim in claimed {
          await inFlight.took(claim.leaseToken)
          group.addTask {
            await capture(claim)
            await inFlight.ended(claim.leaseToken)
            await doorbell.ring()
          }
        }
        // A full batch means more may be waiting: claim again at once.
        if claimed.count == min(room, 200), room > 0 { continue }
        await doorbell.wait(timeout: .seconds(1))
      }
    }
  }

  /// One reservation: the camera request (unless its window has passed), then the commit,
  /// the photo held meanwhile.
  private func capture(_ claim: PhotoClaim) async {
    let started = ContinuousClock.now
    var reply: (result: PhotoResult, held: Double)
    if claim.isStillUseful {
      reply = await request(claim)
    } else {
      reply = (.failed(.workerLost, detail: "claimed with \(claim.remainingSeconds) s left"), 0)
    }
    // Only a photo is held until its commit (a retry after a lost connection needs it); an
    // error reply or garbage goes now, before its capture is counted as judged.
    if case .failed = reply.result, reply.held > 0 {
      metrics.add(Self.heldBytes, -reply.held)
      reply.held = 0
    }
    let latency = (ContinuousClock.now - started).seconds
    metrics.observe("mowdeck_photo_capture_seconds", latency)
    await commit(claim, reply.result, latency: latency)
    if reply.held > 0 { metrics.add(Self.heldBytes, -reply.held) }
  }

  /// Admits a camera's reply to the bytes held, within the budget, as it arrives and before
  /// it is copied out of nats.c: so the budget bounds every reply the worker holds, not
  /// only those whose task has run since (ADR 0023). A reply that does not fit is dropped
  /// there and its capture recorded as shed: the camera already answered, so only the
  /// photo can give way. Two kinds are decided by size alone, budget or not:
  /// - a reply over the photo limit is refused, and recorded as too large, never copied;
  /// - a reply of at most `smallReplyBytes` (an error, never a photo) is always taken,
  ///   so a full budget never hides why a camera had no photo.
  private func admit(_ bytes: Int) -> Bool {
    if bytes > CameraReply.maximumBytes { return false }
    if bytes <= Self.smallReplyBytes {
      metrics.add(Self.heldBytes, Double(bytes))
      return true
    }
    return metrics.raise(Self.heldBytes, by: Double(bytes), upTo: Double(maxHeldBytes))
  }

  /// Replies this small are error replies (`{"error":"asleep"}`), and always admitted.
  static let smallReplyBytes = 1024

  /// Stores `result`, retried while PostgreSQL is away; gives up only when stopping (the
  /// lease then runs out and another worker takes the reservation over).
  private func commit(_ claim: PhotoClaim, _ result: PhotoResult, latency: Double) async {
    var backoff = Backoff(initial: 0.1, maximum: 2)
    let replied = ContinuousClock.now
    while true {
      do {
        let completion = try await store.complete(claim, result: result, latencySeconds: latency)
        record(claim, result, completion, latency, store: (ContinuousClock.now - replied).seconds)
        return
      } catch {
        logger.warning(
          "storing a photo outcome failed, retrying",
          ["error": error, "image_id": claim.imageID])
        guard await backoff.wait() else { return }
      }
    }
  }

  /// The camera's answer, and the bytes of it admitted to the budget.
  private func request(_ claim: PhotoClaim) async -> (result: PhotoResult, held: Double) {
    let timeout = min(Double(photoTimeoutSeconds), claim.remainingSeconds)
    let body = JSON.encode([
      "demand": "error_analysis", "frames": 1, "timeout_s": photoTimeoutSeconds,
    ])
    do {
      let reply = try await nats.request(
        subjects.photoRequest(mowerID: claim.mowerID), Array(body.utf8),
        contentType: "application/json", timeout: .milliseconds(Int(timeout * 1000)),
        admit: { [self] bytes in admit(bytes) })
      return (CameraReply.classify(reply), Double(reply.data.count))
    } catch {
      switch error {
      case .timeout: return (.failed(.timeout, detail: nil), 0)
      case .noResponders: return (.failed(.noResponders, detail: nil), 0)
      case .replyRefused(_, let bytes) where bytes > CameraReply.maximumBytes:
        return (.failed(.tooLarge, detail: "\(bytes) bytes"), 0)
      case .replyRefused(_, let bytes):
        shedding.log(["image_id": claim.imageID, "bytes": bytes])
        return (
          .failed(
            .storeOverloaded,
            detail: "\(bytes) bytes over the \(maxHeldBytes)-byte budget of photos held"), 0
        )
      default: return (.failed(.gatewayError, detail: String(describing: error)), 0)
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
        "stored": completion == .stored, "latency_ms": Int(latency * 1000),
        "store_us": Int(store * 1_000_000),
      ])
  }
}
