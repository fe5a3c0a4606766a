import Foundation

/// The sandbox's record as the ramp reads it, once per step: the pipeline's pushes not yet
/// counted into a step, and each notification's first push.
struct RampPushes {
  private let tail: PushTail
  private var times: [Date] = []
  private var firstPush: [String: Date] = [:]

  init(record: URL) { tail = PushTail(record: record) }

  /// Reads the pushes recorded since the last call.
  mutating func read() {
    // Only the pipeline's pushes: the warm-up's come first and are dropped with the first
    // step's `forget`; requests without a notification are nobody's alarm.
    for push in tail.readNew() {
      guard let notification = push.notificationID else { continue }
      times.append(push.time)
      if firstPush[notification].map({ push.time < $0 }) ?? true {
        firstPush[notification] = push.time
      }
    }
  }

  /// Pushes recorded at `from` or later and before `to`.
  func count(from: Date, to: Date) -> Int {
    times.count { $0 >= from && $0 < to }
  }

  func firstPush(of notification: String) -> Date? { firstPush[notification] }

  /// Drops what was pushed before `date`. Once a step is read, its pushes are counted and
  /// no later step's alarm can have been pushed before the step ended: a long ramp need
  /// not keep every push.
  mutating func forget(before date: Date) {
    times.removeAll { $0 < date }
    firstPush = firstPush.filter { $0.value >= date }
  }
}
