import Events
import FoundationEssentials
import Infrastructure

/// The APNs stage: takes the deliveries the fan-out hands over, claims the others (retries,
/// released or lapsed handoffs), pushes each over HTTP/2, and records the outcome; retries
/// with backoff, deactivates dead tokens, never waits for the camera.
struct APNsService: Service {
  let store: DeliveryStore
  let outcomes: OutcomeWriter<DeliveryStore>
  let client: HTTPClient
  let token: ProviderToken
  let nats: NATSClient
  let subjects: Subjects
  let configuration: Configuration
  let signer: ImageURLSigner?
  let clock: any WallClock
  let logger: Logger
  let metrics: Metrics
  /// Due deliveries and recorded outcomes, for the gauges and `/healthz`.
  let progress: StageProgress
  let maxInFlight: Int

  func run() async throws {
    try await Migrator(pool: store.pool, logger: logger).migrateWhenReachable()
    let doorbell = Doorbell()
    let listener = try doorbell.listen(to: subjects.wakeDeliveries, on: nats, queue: "APNsWorker")
    defer { listener.cancel() }
    let handoffs = try nats.subscribe(
      subjects.deliveryHandoff, queue: "APNsWorker", bufferLimit: 1000)
    // Stopping (graceful): no more offers to this worker; the fan-out's next offers go to
    // another, or to the claim path.
    let refusing = Task {
      guard let shutdown = GracefulShutdown.current else { return }
      await shutdown.wait()
      if shutdown.isRequested { handoffs.unsubscribe() }
    }
    defer { refusing.cancel() }
    let inFlight = InFlightCounter()
    // The handed-off pushes' short first leases, renewed for those lasting over a second;
    // nearly all end sooner and cost no renewal (ADR 0016).
    let handedOff = LeasesInFlight()
    let renewer = Task {
      await handedOff.keepRenewing(
        every: .seconds(1), heldFor: .seconds(1), logger: logger, what: "handed-off leases"
      ) { try await store.renew(handoffLeases: $0) }
    }
    defer { renewer.cancel() }
    let measuring = Task {
      await store.leases.keepMeasuring(platform: .apns, inFlight: inFlight, into: progress)
    }
    defer { measuring.cancel() }
    logger.info(
      "APNs worker running",
      [
        "production": configuration.apnsURL, "sandbox": configuration.apnsSandboxURL,
        "images": signer != nil && configuration.imageBaseURL != nil,
      ])
    await withDiscardingTaskGroup { group in
      group.addTask {
        await take(handoffs, leases: handedOff, inFlight: inFlight, doorbell: doorbell)
      }
      // Stopping (graceful): no more claims or offers; the pushes in flight end.
      let loop = ClaimLoop(
        what: "deliveries", maxInFlight: maxInFlight, batchSize: 500, logger: logger)
      await loop.run(
        in: &group, doorbell: doorbell, inFlight: { await inFlight.value },
        claim: { try await store.claim(limit: $0) }
      ) { delivery, group in
        await start(delivery, in: &group, inFlight: inFlight, doorbell: doorbell)
      }
    }
    client.shutdown()
  }

  /// The fan-out's handoffs (ADR 0016): each is taken, and its pushes started, while this
  /// worker is below its in-flight cap and the offer is still awaited; declined otherwise,
  /// and then the fan-out releases the deliveries to the claim path. The answer goes only
  /// after the pushes have started.
  private func take(
    _ handoffs: NATSSubscription, leases: LeasesInFlight, inFlight: InFlightCounter,
    doorbell: Doorbell
  ) async {
    await withDiscardingTaskGroup { group in
      for await message in handoffs {
        var answer = DeliveryHandoff.Answer.declined
        do {
          let handoff = try DeliveryHandoff.decode(message.data)
          let late = handoff.answerBy.map { clock.now() > $0 } ?? false
          if !late, await inFlight.value < maxInFlight {
            await leases.took(handoff.leaseToken, items: handoff.deliveries.count)
            for delivery in handoff.deliveries {
              await start(
                ClaimedDelivery(handoff: handoff, delivery: delivery), in: &group,
                inFlight: inFlight, doorbell: doorbell
              ) { await leases.ended(handoff.leaseToken) }
            }
            answer = .taken
          }
        } catch {
          logger.error(
            "a delivery handoff is unreadable; declined, so the deliveries are claimed instead",
            ["error": error, "bytes": message.data.count])
        }
        metrics.increment("mowdeck_apns_handoffs_total", labels: ["answer": answer.rawValue])
        if let reply = message.reply { try? nats.publish(reply, Array(answer.rawValue.utf8)) }
      }
      // Stopping: no more offers to this worker while its last pushes end.
      handoffs.unsubscribe()
    }
  }

  private func start(
    _ delivery: ClaimedDelivery, in group: inout DiscardingTaskGroup, inFlight: InFlightCounter,
    doorbell: Doorbell, afterwards: @escaping @Sendable () async -> Void = {}
  ) async {
    await inFlight.add(1)
    group.addTask {
      await deliver(delivery)
      await afterwards()
      // A worker at its cap claims again once half its pushes have ended, not at its
      // next sweep: a backlog (after an APNs outage) drains at the connection's pace,
      // not at 200 a second (issue 9). Below half the cap this never rings.
      if await inFlight.add(-1) == maxInFlight / 2 { await doorbell.ring() }
    }
  }

  private func deliver(_ delivery: ClaimedDelivery) async {
    let outcome = await attempt(delivery)
    let recorder = LeasedOutcome(
      what: "delivery", givenUpMetric: "mowdeck_apns_outcomes_given_up_total", logger: logger,
      metrics: metrics)
    // Given up, the delivery is sent again when its lease lapses, under the same collapse id.
    await recorder.record(["delivery_id": delivery.deliveryID]) {
      if try await !outcomes.write(delivery, outcome) {
        metrics.increment("mowdeck_apns_stale_total")
      }
      progress.progressed()
    }
  }

  /// One push, with at most one immediate retry after renewing a rejected provider token.
  private func attempt(_ delivery: ClaimedDelivery) async -> DeliveryStore.Outcome {
    guard delivery.deviceActive else {
      return .failed(
        status: nil, reason: "device_inactive", deactivateDevice: false, apnsTimestamp: nil)
    }
    guard DeliveryPolicy.isWellFormed(token: delivery.token) else {
      return .failed(
        status: nil, reason: "bad_token_format", deactivateDevice: false, apnsTimestamp: nil)
    }
    var renewed = false
    while true {
      let started = ContinuousClock.now
      let now = clock.now()
      let payload = PushPayload(
        delivery: delivery, signer: signer, origin: configuration.imageBaseURL,
        ttlSeconds: configuration.imageURLTTLSeconds, now: now)
      let jwt: String
      do {
        jwt = try token.jwt()
      } catch {
        logger.error("cannot sign the APNs provider token", ["error": error])
        return retryOrExpire(delivery, status: nil, reason: "provider_token_unavailable", now: now)
      }
      let result = await client.send(request(delivery, payload: payload, jwt: jwt, now: now))
      let latency = ContinuousClock.now - started
      metrics.observe("mowdeck_apns_request_seconds", latency.seconds)
      let action = DeliveryPolicy.classify(result, deviceRegisteredAt: delivery.deviceRegisteredAt)
      metrics.increment("mowdeck_apns_responses_total", labels: ["action": action.label])
      if case .response(let status, _, let body) = result, status != 200 {
        metrics.increment(
          "mowdeck_apns_refusals_total",
          labels: ["status": String(status), "reason": APNsRefusal.metricLabel(of: body)])
      }
      switch action {
      case .sent(let apnsID):
        AlarmToPush.observe(
          metrics, platform: .apns, receivedAt: delivery.createdAt, now: clock.now())
        return .sent(
          apnsID: apnsID, status: 200, latencyMs: Int(latency.seconds * 1000),
          hasImage: payload.imageURL != nil)
      case .renewTokenAndRetry(let reason):
        logger.error(
          "APNs rejected the provider token; signing a new one",
          ["reason": reason, "key_id": token.keyID, "team_id": token.teamID, "retried": renewed])
        token.invalidate()
        if renewed { return retryOrExpire(delivery, status: 403, reason: reason, now: now) }
        renewed = true
      case .retry(let status, let reason):
        return retryOrExpire(delivery, status: status, reason: reason, now: now)
      case .failed(let status, let reason, let deactivate, let timestamp):
        return .failed(
          status: status, reason: reason, deactivateDevice: deactivate, apnsTimestamp: timestamp)
      }
    }
  }

  private func retryOrExpire(_ delivery: ClaimedDelivery, status: Int?, reason: String, now: Date)
    -> DeliveryStore.Outcome
  {
    let delay = DeliveryPolicy.retryDelay(attempt: delivery.attempt)
    if now.addingTimeInterval(delay).timeIntervalSince(delivery.createdAt)
      > DeliveryPolicy.maximumAgeSeconds
    {
      return .failed(
        status: status, reason: "too_old_to_matter (\(reason))", deactivateDevice: false,
        apnsTimestamp: nil)
    }
    return .retry(status: status, reason: reason, afterSeconds: delay)
  }

  private func request(_ delivery: ClaimedDelivery, payload: PushPayload, jwt: String, now: Date)
    -> HTTPClientRequest
  {
    let base =
      delivery.environment == "sandbox" ? configuration.apnsSandboxURL : configuration.apnsURL
    let expiration =
      Int64(delivery.createdAt.timeIntervalSince1970) + Int64(DeliveryPolicy.maximumAgeSeconds)
    return HTTPClientRequest(
      url: "\(base)/3/device/\(delivery.token)",
      headers: [
        ("authorization", "bearer \(jwt)"),
        ("apns-topic", configuration.apnsTopic),
        ("apns-push-type", "alert"),
        ("apns-priority", "10"),
        ("apns-expiration", String(expiration)),
        ("apns-id", delivery.deliveryID.uuidString.lowercased()),
        // The notification id: a repeated delivery replaces, never doubles, on the phone.
        ("apns-collapse-id", delivery.notificationID.uuidString.lowercased()),
        ("content-type", "application/json"),
      ],
      body: payload.body, timeoutSeconds: 10)
  }
}
