import Events
import Infrastructure
import Testing

@testable import FanoutWorker

@Suite struct AlarmCatalogueTests {
  @Test(arguments: [
    ("mower_lifted", AlarmClass.theft),
    ("mower_left_dock_unexpectedly", .theft),
    ("geofence_exit", .theft),
    ("mower_stuck", .error),
    ("mower_finished", .routine),
    ("battery_low", .routine),
    ("mower_offline", .routine),
    ("rain_pause", .routine),
  ])
  func contractKindsHaveTheirClass(kind: String, expected: AlarmClass) {
    #expect(AlarmCatalogue.alarmClass(of: kind) == expected)
  }

  @Test(arguments: ["", "mower_exploded", "MOWER_LIFTED", "mower_lifted "])
  func unknownKindsHaveNoClass(kind: String) {
    #expect(AlarmCatalogue.alarmClass(of: kind) == nil)
  }

  @Test func onlyRoutineAlarmsGoWithoutPhoto() {
    #expect(AlarmClass.theft.takesPhoto)
    #expect(AlarmClass.error.takesPhoto)
    #expect(!AlarmClass.routine.takesPhoto)
  }

  @Test func noKindIsInTwoClasses() {
    let theft = AlarmCatalogue.theftKinds
    let error = AlarmCatalogue.errorKinds
    let routine = AlarmCatalogue.routineKinds
    #expect(theft.isDisjoint(with: error))
    #expect(theft.isDisjoint(with: routine))
    #expect(error.isDisjoint(with: routine))
  }
}
