import Events
import FoundationEssentials
import Infrastructure

/// The Web Push stage: claims due `webpush` deliveries (the alarm's message and the photo's
/// follow-up), encrypts each to its browser's subscription (RFC 8291), signs VAPID (RFC
/// 8292), posts it to the push service, and records the outcome: retried with backoff
/// (honouring `Retry-After`), failed for good, or the subscription switched off on 404/410.
struct WebPushService: Service {
  let store: WebPushStore
  let client: HTTPClient
  let vapid: VAPIDHeaders
  let nats: NATSClient
  let subjects: Subjects
  let configuration: Configuration
  let signer: ImageURLSigner?
  let clock: any WallClock
  let logger: Logger
  let metrics: Metrics
  let progress: StageProgress
  let maxInFlight: Int

  func run() async throws {
    try await Migrator(pool: store.pool, logger: logger).migrateWhenReachable()
    let doorbell = Doorbell()
    let listener = try doorbell.listen(
      to: subjects.wakeDeliveries, on: nats, queue: "WebPushWorker")
    defer { listener.cancel() }
    let inFlight = InFlightCounter()
    let measuring = Task {
      await progress.keepMeasuring(every: .seconds(2)) {
        let waiting = try await store.waiting()
        return StageProgress.Reading(
          count: waiting.claimable + (await inFlight.value),
          oldestAgeSeconds: waiting.oldestAgeSeconds)
      }
    }
    defer { measuring.cancel() }
    logger.info(
      "Web Push worker running",
      ["images": signer != nil && configuration.imageBaseURL != nil, "max_in_flight": maxInFlight])
    await withDiscardingTaskGroup { group in
      // Stopping (graceful): no more claims; the pushes in flight end.
      let loop = ClaimLoop(
        what: "Web Push deliveries", maxInFlight: maxInFlight, batchSize: 200, logger: logger)
      await loop.run(
        in: &group, doorbell: doorbell, inFlight: { await inFlight.value },
        claim: { try await store.claim(limit: $0) }
      ) { delivery, group in
        await inFlight.add(1)
        group.addTask {
          await deliver(delivery)
          if await inFlight.add(-1) == maxInFlight / 2 { await doorbell.ring() }
        }
      }
    }
    client.shutdown()
  }

  private func deliver(_ delivery: WebPushDelivery) async {
    let outcome = await attempt(delivery)
    let recorder = LeasedOutcome(
      what: "Web Push", givenUpMetric: "mowdeck_webpush_outcomes_given_up_total",
      logger: logger, metrics: metrics)
    // Given up, the delivery is sent again when its lease lapses, under the same Topic.
    await recorder.record(["delivery_id": delivery.deliveryID]) {
      if try await !store.finish(delivery, outcome) {
        metrics.increment("mowdeck_webpush_stale_total")
      }
      progress.progressed()
    }
  }

  private func attempt(_ delivery: WebPushDelivery) async -> WebPushOutcome {
    guard delivery.deviceActive else {
      return .failed(status: nil, reason: "device_inactive", deactivateDevice: false)
    }
    let now = clock.now()
    let imageURL = delivery.followup ? imageURL(for: delivery, now: now) : nil
    if delivery.followup, imageURL == nil {
      // Without an image URL the follow-up would only repeat the alarm.
      return .failed(status: nil, reason: "no_image_url", deactivateDevice: false)
    }
    let request: HTTPClientRequest
    do {
      request = try WebPushRequest.make(
        delivery, message: WebPushMessage(delivery: delivery, imageURL: imageURL), vapid: vapid,
        now: now)
    } catch {
      // A subscription whose keys cannot be encrypted to, or an endpoint VAPID cannot name:
      // no attempt can ever succeed.
      logger.warning(
        "a Web Push subscription cannot be used",
        ["error": error, "delivery_id": delivery.deliveryID, "service": delivery.tokenPrefix])
      return .failed(status: nil, reason: "bad_subscription", deactivateDevice: true)
    }
    let started = ContinuousClock.now
    let result = await client.send(request)
    let latency = ContinuousClock.now - started
    metrics.observe("mowdeck_webpush_request_seconds", latency.seconds)
    let action = WebPushPolicy.classify(result)
    metrics.increment("mowdeck_webpush_responses_total", labels: ["action": action.label])
    switch action {
    case .sent(let status):
      return .sent(
        status: status, latencyMs: Int(latency.seconds * 1000), hasImage: imageURL != nil)
    case .retry(let status, let reason, let notBefore):
      let delay = WebPushPolicy.retryDelay(attempt: delivery.attempt, notBefore: notBefore)
      if now.addingTimeInterval(delay).timeIntervalSince(delivery.createdAt)
        > WebPushPolicy.maximumAgeSeconds
      {
        return .failed(
          status: status, reason: "too_old_to_matter (\(reason))", deactivateDevice: false)
      }
      return .retry(status: status, reason: reason, afterSeconds: delay)
    case .failed(let status, let reason, let deactivate):
      return .failed(status: status, reason: reason, deactivateDevice: deactivate)
    }
  }

  /// A freshly signed URL of the photo, valid for the image URL lifetime from now.
  private func imageURL(for delivery: WebPushDelivery, now: Date) -> String? {
    guard delivery.imageID != nil, let signer, let origin = configuration.imageBaseURL else {
      return nil
    }
    let expiry = Int64(now.timeIntervalSince1970) + Int64(configuration.imageURLTTLSeconds)
    return signer.url(origin: origin, notificationID: delivery.notificationID, expiry: expiry)
  }
}
