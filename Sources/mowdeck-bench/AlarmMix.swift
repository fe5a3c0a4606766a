import Events
import Foundation
import Infrastructure

/// The alarm mix of the whole-pipeline benchmark: what a large fleet sends. One alarm in
/// ten is a theft alarm and two are `mower_stuck` (both ask for a photo), the rest are
/// routine; mowers are picked at random from a fleet large enough that cooldowns rarely
/// apply, as in a real fleet where one mower alarms a few times a day.
struct AlarmMix {
  let mowers: Int
  private static let theft = ["mower_lifted", "geofence_exit", "mower_left_dock_unexpectedly"]
  private static let routine = [
    "battery_low", "mower_finished", "rain_pause", "mower_docked", "mower_started", "mower_offline",
  ]

  /// The `index`-th alarm: its event id, subject's mower and payload.
  func alarm(_ index: Int) -> (eventID: String, mower: String, payload: [UInt8]) {
    let kind: String
    switch index % 10 {
    case 0: kind = Self.theft[(index / 10) % Self.theft.count]
    case 1, 2: kind = "mower_stuck"
    default: kind = Self.routine[index % Self.routine.count]
    }
    let mower = "bm-\(Int.random(in: 0..<mowers))"
    let alarm = AlarmMessage(mowerID: mower, kind: kind, occurredAt: Date(), mowerName: "Bench")
    return (alarm.eventID.uuidString.lowercased(), mower, alarm.encoded)
  }
}
