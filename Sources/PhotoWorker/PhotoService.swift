import Events
import FoundationEssentials
import Infrastructure

/// The photo stage: claims reservations, asks each mower's camera once, and stores the
/// photo or a failure marker. Many requests are in flight at once, none holding a thread.
/// The answered photos waiting for PostgreSQL are held up to a byte budget; a photo that
/// would pass it is shed, recorded as failed (ADR 0019, `HeldBytesBudget`).
struct PhotoService: Service {
  let store: PhotoStore
  /// Writes outcomes, several to a transaction while every connection is busy.
  let completer: PhotoCompleter
  let nats: NATSClient
  let subjects: Subjects
  let logger: Logger
  let metrics: Metrics
  let maxInFlight: Int
  /// The bytes of answered photos held while they wait for the store.
  let heldBytes: HeldBytesBudget
  let photoTimeoutSeconds: Int
  let shedding: ThrottledWarning
  /// Pending reservations and finished captures, for the gauges and `/healthz`.
  let progress: StageProgress
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
    // What waits: the reservations nobody holds, and the requests this worker holds.
    let measuring = Task {
      await progress.keepMeasuring(every: .seconds(2)) {
        let waiting = try await store.waiting()
        return StageProgress.Reading(
          count: waiting.claimable + (await inFlight.count),
          oldestAgeSeconds: waiting.oldestAgeSeconds)
      }
    }
    defer { measuring.cancel() }
    logger.info(
      "photo worker running", ["max_in_flight": maxInFlight, "max_held_bytes": heldBytes.limit])
    await withDiscardingTaskGroup { group in
      // Stopping (graceful): no more claims; the requests in flight end and are stored.
      let loop = ClaimLoop(
        what: "photo reservations", maxInFlight: maxInFlight, batchSize: 200, logger: logger)
      await loop.run(
        in: &group, doorbell: doorbell, inFlight: { await inFlight.count },
        claim: { try await store.claim(limit: $0) }
      ) { claim, group in
        await inFlight.took(claim.leaseToken)
        group.addTask {
          // Returns once the outcome is stored or given up (`commit`): either way its
          // lease is let go here and no longer renewed.
          await capture(claim)
          progress.progressed()
          await inFlight.ended(claim.leaseToken)
          await doorbell.ring()
        }
      }
    }
  }

  /// One reservation: the camera request (unless its window has passed), then the commit,
  /// the photo held meanwhile.
  private func capture(_ claim: PhotoClaim) async {
    let started = ContinuousClock.now
    var reply: (result: PhotoResult, held: Int)
    if claim.isStillUseful {
      reply = await request(claim)
    } else {
      reply = (.failed(.workerLost, detail: "claimed with \(claim.remainingSeconds) s left"), 0)
    }
    // Only a photo is held until its commit (a retry after a lost connection needs it); an
    // error reply or garbage goes now, before its capture is counted as judged.
    if case .failed = reply.result, reply.held > 0 {
      heldBytes.release(reply.held)
      reply.held = 0
    }
    let latency = (ContinuousClock.now - started).seconds
    metrics.observe("mowdeck_photo_capture_seconds", latency)
    await commit(claim, reply.result, latency: latency)
    heldBytes.release(reply.held)
  }

  /// The camera's answer, and the bytes of it admitted to the budget.
  private func request(_ claim: PhotoClaim) async -> (result: PhotoResult, held: Int) {
    let timeout = min(Double(photoTimeoutSeconds), claim.remainingSeconds)
    let body = WireCoding.encode(PhotoRequest(timeoutSeconds: photoTimeoutSeconds))
    do {
      let reply = try await nats.request(
        subjects.photoRequest(mowerID: claim.mowerID), body,
        contentType: "application/json", timeout: .milliseconds(Int(timeout * 1000)),
        admit: { [heldBytes] bytes in heldBytes.admit(bytes, takenOver: claim.attempt > 1) })
      return (CameraReply.classify(reply), reply.data.count)
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
            detail: "\(bytes) bytes over the \(heldBytes.limit)-byte budget of photos held"), 0
        )
      default: return (.failed(.gatewayError, detail: String(describing: error)), 0)
      }
    }
  }
}
