import Events
import FoundationEssentials
import Infrastructure

/// What the fan-out knows about a mower when it decides: read under the mower's row lock.
struct MowerState: Sendable, Equatable {
  var lastTheftPush: Date?
  var lastErrorPush: Date?
  var lastPhoto: Date?
  /// Decision times of the mower's recent photo reservations (failed captures included).
  var photoTimes: [Date] = []

  /// Reservations in the 24 hours before `time`.
  func reservations(inDayBefore time: Date) -> Int {
    photoTimes.filter { $0 > time.addingTimeInterval(-86_400) && $0 <= time }.count
  }
}

/// Why a theft or error alarm goes out without a photo.
enum PhotoSkipReason: String, Sendable {
  case noRecipients = "no_recipients"
  case minInterval = "min_interval"
  case dailyLimit = "daily_limit"
}

enum PhotoDecision: Sendable, Equatable {
  case none
  case reserved
  case skipped(PhotoSkipReason)

  /// The wording of `fleet40.expected.jsonl`.
  var label: String {
    switch self {
    case .none: return "none"
    case .reserved: return "reserved"
    case .skipped(let reason): return "skipped:" + reason.rawValue
    }
  }
}

enum Decision: Sendable, Equatable {
  case suppressed(lastPush: Date, cooldownSeconds: Int)
  case pushed(PhotoDecision)
}

/// The rules of docs/interfaces.md#alarm-classes, as a pure function of the alarm's own time and
/// the mower's state, so that replaying a stream gives the same decisions every time.
struct DecisionRules: Sendable {
  let theftCooldownSeconds: Int
  let errorCooldownSeconds: Int
  let photoMinIntervalSeconds: Int
  let photoDailyLimit: Int

  init(configuration: Configuration) {
    theftCooldownSeconds = configuration.cooldownTheftSeconds
    errorCooldownSeconds = configuration.cooldownStuckSeconds
    photoMinIntervalSeconds = configuration.imageMinIntervalSeconds
    photoDailyLimit = configuration.imageDailyLimit
  }

  /// The time an alarm is decided on: its own `occurred_at`, clamped to the receive time.
  static func decisionTime(occurredAt: Date, receivedAt: Date) -> Date {
    min(occurredAt, receivedAt)
  }

  /// - Parameter reservationsInLastDay: photo reservations of the mower in the 24 hours
  ///   before `time`, failed captures included.
  func decide(
    _ alarmClass: AlarmClass, at time: Date, state: MowerState, reservationsInLastDay: Int,
    recipients: Int
  ) -> Decision {
    if let (lastPush, cooldown) = cooldown(for: alarmClass, state: state),
      time.timeIntervalSince(lastPush) < Double(cooldown)
    {
      return .suppressed(lastPush: lastPush, cooldownSeconds: cooldown)
    }
    guard alarmClass.takesPhoto else { return .pushed(.none) }
    guard recipients > 0 else { return .pushed(.skipped(.noRecipients)) }
    if let lastPhoto = state.lastPhoto,
      time.timeIntervalSince(lastPhoto) < Double(photoMinIntervalSeconds)
    {
      return .pushed(.skipped(.minInterval))
    }
    guard reservationsInLastDay < photoDailyLimit else { return .pushed(.skipped(.dailyLimit)) }
    return .pushed(.reserved)
  }

  private func cooldown(for alarmClass: AlarmClass, state: MowerState) -> (Date, Int)? {
    switch alarmClass {
    case .theft: return state.lastTheftPush.map { ($0, theftCooldownSeconds) }
    case .error: return state.lastErrorPush.map { ($0, errorCooldownSeconds) }
    case .routine: return nil
    }
  }
}
