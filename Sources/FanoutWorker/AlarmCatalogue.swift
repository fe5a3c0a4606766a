import Events
import Infrastructure

/// The classes of alarm (docs/interfaces.md#alarm-classes): which take a photo, which cool down.
public enum AlarmClass: String, Sendable, CaseIterable {
  case theft
  case error
  case routine

  /// Theft and error alarms ask the camera for one photo; routine ones never do.
  public var takesPhoto: Bool { self != .routine }
}

/// The kinds of alarm the system knows. A kind not listed here is rejected.
public enum AlarmCatalogue {
  public static let theftKinds: Set<String> = [
    "mower_lifted", "mower_left_dock_unexpectedly", "geofence_exit",
  ]
  /// Stuck, trapped, obstacle, outside the area and wheel slip all arrive as `mower_stuck`,
  /// told apart by the alarm's `reason`.
  public static let errorKinds: Set<String> = ["mower_stuck"]
  public static let routineKinds: Set<String> = [
    "mower_finished", "battery_low", "mower_offline", "rain_pause", "mower_started",
    "mower_docked", "mower_online", "frost_pause", "blade_worn", "firmware_updated",
  ]

  public static func alarmClass(of kind: String) -> AlarmClass? {
    if theftKinds.contains(kind) { return .theft }
    if errorKinds.contains(kind) { return .error }
    if routineKinds.contains(kind) { return .routine }
    return nil
  }
}
