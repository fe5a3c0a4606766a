import FoundationEssentials
import Infrastructure

extension ChannelService {
  /// One attempt and its recorded outcome.
  func deliver(_ delivery: ChannelDelivery) async {
    let outcome = await outcome(of: delivery)
    let recorder = LeasedOutcome(
      what: channel.displayName, givenUpMetric: metric("outcomes_given_up_total"),
      logger: logger, metrics: metrics)
    // Given up, the delivery is sent again when its lease lapses, under the same tag,
    // `Topic` or sequence id, which replaces rather than doubles.
    await recorder.record(["delivery_id": delivery.deliveryID]) {
      if try await !outcomes.write(delivery, outcome) {
        metrics.increment(metric("stale_total"))
      }
      progress.progressed()
    }
  }

  /// What the channel made of the attempt, or why none was made: the device was switched
  /// off meanwhile, or a follow-up has no photo URL to carry (it would only repeat the
  /// alarm).
  func outcome(of delivery: ChannelDelivery) async -> ChannelOutcome {
    guard delivery.deviceActive else {
      return .failed(status: nil, reason: "device_inactive", deactivateDevice: false)
    }
    let now = clock.now()
    let imageURL = delivery.followup ? photos.url(for: delivery, now: now) : nil
    if delivery.followup, imageURL == nil {
      return .failed(status: nil, reason: "no_image_url", deactivateDevice: false)
    }
    let started = ContinuousClock.now
    let answer = await channel.attempt(delivery, imageURL: imageURL, now: now)
    let latency = ContinuousClock.now - started
    metrics.observe(metric("request_seconds"), latency.seconds)
    metrics.increment(metric("responses_total"), labels: ["action": answer.label])
    if let status = answer.refusalStatus {
      metrics.increment(metric("refusals_total"), labels: ["status": String(status)])
    } else if case .sent = answer, !delivery.followup {
      AlarmToPush.observe(
        metrics, platform: channel.platform, receivedAt: delivery.createdAt, now: clock.now())
    }
    return ChannelBackoff.outcome(
      of: answer, for: delivery, latencyMs: Int(latency.seconds * 1000),
      hasImage: imageURL != nil, now: now)
  }

  /// The stage's metric `mowdeck_<platform>_<name>`: `mowdeck_webpush_stale_total`.
  func metric(_ name: String) -> String { "mowdeck_\(channel.platform.rawValue)_\(name)" }
}
