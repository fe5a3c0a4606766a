import Infrastructure

/// The fact types of the event log (docs/interfaces.md#event-log). Operators query by these
/// strings, so they never change once written.
public enum EventType: String, Sendable, CaseIterable {
  case alarmReceived = "alarm.received"
  case alarmRejected = "alarm.rejected"
  case alarmSuppressed = "alarm.suppressed"
  case notificationCreated = "notification.created"
  case deliveryQueued = "delivery.queued"
  case imageReserved = "image.reserved"
  case photoSkipped = "photo.skipped"
  case photoRequested = "photo.requested"
  case photoCaptured = "photo.captured"
  case photoFailed = "photo.failed"
  case deliverySent = "delivery.sent"
  case deliveryRetryScheduled = "delivery.retry_scheduled"
  case deliveryFailed = "delivery.failed"
  case deviceDeactivated = "device.deactivated"
  case imageServed = "image.served"
  case imageExpired = "image.expired"
  case imagePruned = "image.pruned"
}
