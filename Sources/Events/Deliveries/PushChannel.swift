import FoundationEssentials
import Infrastructure

/// What one channel worker (Web Push, FCM, ntfy) adds to the shared loop
/// (`ChannelService`): its platform and names, and how one attempt is built, sent and its
/// answer classed. Claiming, leases, outcomes, events, metrics and shutdown are the loop's.
public protocol PushChannel: Sendable {
  /// The deliveries it claims. It also names the stage's metrics (`mowdeck_<platform>_...`)
  /// and its `/healthz` stage.
  var platform: DevicePlatform { get }
  /// The executable: its queue group on the doorbell, its PostgreSQL and NATS connections.
  var workerName: String { get }
  /// What the log calls the channel: "Web Push".
  var displayName: String { get }

  /// Sends one attempt and classes what came of it; every failure is an answer, never an
  /// error. Called only for an active device, and for a follow-up only with its photo's
  /// freshly signed `imageURL` (nil for the alarm's own message).
  func attempt(_ delivery: ChannelDelivery, imageURL: String?, now: Date) async -> ChannelAnswer

  /// Called once no attempt is in flight any more: closes the channel's connections.
  func shutdown()
}
