import Infrastructure

/// The words a person reads for an alarm: the push's title and body and the inbox item's
/// text, in one place so the phone and the web inbox say the same.
public struct AlarmText: Sendable, Equatable {
  public let title: String
  public let body: String

  public init(kind: String, mowerName: String?, reason: String?) {
    let name = mowerName.flatMap { $0.isEmpty ? nil : $0 } ?? "Your mower"
    switch kind {
    case "mower_lifted":
      title = "\(name) was lifted"
      body = "Someone lifted the mower. Check on it now."
    case "mower_left_dock_unexpectedly":
      title = "\(name) left its dock"
      body = "The mower left the dock outside its schedule."
    case "geofence_exit":
      title = "\(name) left its area"
      body = "The mower is outside its boundary. It may have been taken."
    case "mower_stuck":
      title = "\(name) needs help"
      body = Self.stuckReason(reason)
    case "mower_finished":
      title = "\(name) finished mowing"
      body = "The mower is back in its dock."
    case "battery_low":
      title = "\(name) battery low"
      body = "The mower is returning to charge."
    case "mower_offline":
      title = "\(name) is offline"
      body = "The mower has not reported for a while."
    case "rain_pause":
      title = "\(name) paused for rain"
      body = "Mowing resumes when the grass is dry."
    default:
      title = name
      body = kind.replacing("_", with: " ")
    }
  }

  private static func stuckReason(_ reason: String?) -> String {
    switch reason {
    case "trapped": return "The mower is trapped and cannot move."
    case "obstacle": return "An obstacle is blocking the mower."
    case "outside_area", "outside_the_area": return "The mower is outside its working area."
    case "wheel_slip": return "The mower's wheels are slipping."
    case "stuck", nil: return "The mower is stuck."
    case let other?:
      return "The mower is stuck (\(other.replacing("_", with: " ")))."
    }
  }
}
