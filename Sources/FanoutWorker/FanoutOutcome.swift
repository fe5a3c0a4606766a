import Events
import FoundationEssentials
import Infrastructure

/// What handling one ingress message came to, for the ack, the wake-ups and the metrics.
struct FanoutOutcome: Sendable, Equatable {
  enum Kind: String, Sendable {
    case pushed, suppressed, duplicate, rejected
    /// The message was handled before (a redelivery after a crash between commit and ack).
    case alreadyHandled = "already_handled"
  }

  let kind: Kind
  let correlationID: UUID
  let mowerID: String?
  var reservedImage: Bool = false
  /// The deliveries to offer to an APNs worker once the decision is acknowledged.
  var handoff: DeliveryHandoff? = nil
  /// Deliveries were queued for the workers' claims (other platforms', and APNs' while the
  /// handoffs are paused): their doorbell is rung.
  var queuedForClaims = false
  /// APNs deliveries were left for the claims because the handoffs are paused.
  var handoffPaused = false
  var detail: String? = nil
}
