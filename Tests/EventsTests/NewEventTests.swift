import Events
import Foundation
import Infrastructure
import Testing

@Suite struct NewEventTests {
  @Test func eventDataTurnsDatesAndUUIDsIntoText() throws {
    let id = try #require(UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"))
    let event = NewEvent(
      .alarmReceived, correlationID: id,
      data: ["at": Date(timeIntervalSince1970: 1_795_947_300), "id": id, "none": String?.none])
    #expect(
      event.dataJSON
        == #"{"at":"2026-11-29T10:15:00Z","id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","none":null}"#
    )
  }
}
