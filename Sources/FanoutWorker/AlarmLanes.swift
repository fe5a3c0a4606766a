import Events
import FoundationEssentials
import Infrastructure
import Synchronization

/// The alarms a fan-out worker holds, one lane per mower (per ingress subject): a lane takes its
/// alarms one at a time in stream order, and lanes never wait for each other, so an alarm being
/// retried holds up only later alarms of its own mower (docs/interfaces.md#ingress-alarm: "every
/// other mower's alarms are decided as usual"). The fetch loop adds what JetStream delivers; a
/// lane's task asks for its next alarm when it finishes one.
final class AlarmLanes: Sendable {
  private let state = Mutex(State())

  private struct State {
    /// Per subject, the alarms not yet finished, the first being decided now.
    var lanes: [String: [JetStreamMessage]] = [:]
    /// Stream sequences held, to drop a redelivery of an alarm still in hand.
    var sequences: Set<UInt64> = []
    var held = 0
  }

  /// Alarms held, queued or being decided.
  var held: Int { state.withLock { $0.held } }

  /// Mowers with alarms held: how many decisions could run at once.
  var busyLanes: Int { state.withLock { $0.lanes.count } }

  /// Adds a delivered alarm to its mower's lane. True when the lane was idle, so the caller
  /// starts a task for it. A redelivery of an alarm still in hand (its ack wait ran out
  /// while it was retried) is dropped: the alarm in hand is acknowledged for both.
  func add(_ message: JetStreamMessage) -> Bool {
    state.withLock { state in
      guard state.sequences.insert(message.streamSequence).inserted else { return false }
      state.held += 1
      let idle = state.lanes[message.subject] == nil
      state.lanes[message.subject, default: []].append(message)
      return idle
    }
  }

  /// Ends `message` (acknowledged, or left for redelivery) and returns the next alarm of its
  /// lane, or nil when the lane is empty and its task should end.
  func finish(_ message: JetStreamMessage) -> JetStreamMessage? {
    state.withLock { state in
      state.sequences.remove(message.streamSequence)
      state.held -= 1
      guard var lane = state.lanes[message.subject], !lane.isEmpty else { return nil }
      lane.removeFirst()
      if lane.isEmpty {
        state.lanes[message.subject] = nil
        return nil
      }
      state.lanes[message.subject] = lane
      return lane[0]
    }
  }

  /// Lets go of the lane of `subject` when stopping: its alarms stay unacknowledged and
  /// JetStream delivers them again.
  func abandon(_ subject: String) {
    state.withLock { state in
      for message in state.lanes.removeValue(forKey: subject) ?? [] {
        state.sequences.remove(message.streamSequence)
        state.held -= 1
      }
    }
  }

  /// When the oldest alarm held was stored by the stream; nil when none is held.
  var oldestStoredAt: Date? {
    state.withLock { state in state.lanes.values.compactMap { $0.first?.storedAt }.min() }
  }
}
