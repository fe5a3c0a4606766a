import Events
import FoundationEssentials
import Infrastructure

/// An alarm read and checked, waiting for its decision.
struct PendingAlarm: Sendable {
  let alarm: IngressAlarm
  let streamSequence: UInt64
  /// When this attempt took it: the decision time unless the mower's clock is believable.
  let receivedAt: Date
  /// When JetStream stored it, acknowledging the publisher: the alarm's receipt by the
  /// system, from which its deliveries' age and `mowdeck_alarm_to_push_seconds` count, so
  /// that time spent waiting in the stream or for a batch is part of the figure.
  let storedAt: Date
}

/// Alarms decided together in one transaction (ADR 0039): at most one per mower, because
/// each decision reads its mower's state as the one before it left it, and at most one per
/// event id, because the second of two is a duplicate only once the first is written.
/// Either kind of second alarm waits for a later batch.
struct DecisionBatch: CommitGroup {
  private(set) var alarms: [PendingAlarm] = []
  private var mowers: Set<String> = []
  private var events: Set<UUID> = []

  init() {}

  init(_ alarm: PendingAlarm) {
    _ = add(alarm)
  }

  var count: Int { alarms.count }

  /// Adds `alarm` unless its mower or its event id is in the batch already.
  mutating func add(_ alarm: PendingAlarm) -> Bool {
    guard !mowers.contains(alarm.alarm.mowerID), !events.contains(alarm.alarm.eventID) else {
      return false
    }
    mowers.insert(alarm.alarm.mowerID)
    events.insert(alarm.alarm.eventID)
    alarms.append(alarm)
    return true
  }
}
