import FoundationEssentials
import Infrastructure

/// The system's main promise, measured: from an alarm's receipt to its push accepted by the
/// push service, per platform (`mowdeck_alarm_to_push_seconds{platform}`). Observed for the
/// alarm's own message only, not the photo's follow-up, at every platform's stage, retries
/// included, so that a slow push service or a backlog shows here first.
///
/// The receipt is when JetStream stored the alarm, acknowledging its publisher: the fan-out
/// writes it as the alarm's `received_at` and its deliveries' `created_at`, so the time an
/// alarm waited in the stream, in the fan-out's lanes or for a batch is part of the figure.
/// Measured on the worker's `WallClock`, as every age of a delivery is (`ChannelBackoff`).
public enum AlarmToPush {
  public static let family = MetricFamily(
    "mowdeck_alarm_to_push_seconds", .histogram,
    "From an alarm's receipt (stored by JetStream) to its push accepted by the push service, "
      + "by platform (the alarm's own message, retries included; not the photo's follow-up).")

  /// From a twentieth of a second to the half hour after which a push is no longer sent.
  public static let buckets: [Double] = [
    0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800,
  ]

  /// One alarm's message accepted now; `receivedAt` is its delivery's `created_at`.
  public static func observe(
    _ metrics: Metrics, platform: DevicePlatform, receivedAt: Date, now: Date
  ) {
    metrics.observe(
      family.name, max(0, now.timeIntervalSince(receivedAt)),
      labels: ["platform": platform.rawValue], buckets: buckets)
  }
}
