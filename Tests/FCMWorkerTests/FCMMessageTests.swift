import Events
import Foundation
import Infrastructure
import Testing

@testable import FCMWorker

/// The JSON of one `messages:send`, to the byte: the alarm's own message and the photo's
/// follow-up, the priority by alarm class, and the time to live left of the half hour.
@Suite struct FCMMessageTests {
  static let token = "dGhpc2lzYW5pbnN0YW5jZQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx6oe_eFy1ixXj"
  static let notificationID = UUID(uuidString: "0f8e2f4c-1111-4222-8333-944455556666")!
  static let now = Date(timeIntervalSince1970: 1_800_000_000)
  static let imageURL =
    "https://owner.example/api/v1/notifications/push-images/0f8e2f4c-1111-4222-8333-944455556666?e=1800000600&s=Xk3_9-aZ"

  static func delivery(
    followup: Bool = false, kind: String = "mower_lifted", alarmClass: String = "theft",
    age: TimeInterval = 10
  ) -> ChannelDelivery {
    ChannelDelivery(
      deliveryID: UUID(), notificationID: notificationID, eventID: UUID(), leaseToken: 1,
      attempt: 1, createdAt: now.addingTimeInterval(-age), followup: followup, platform: .fcm,
      deviceID: UUID(), address: token, webPushKeys: nil, deviceActive: true, imageID: UUID(),
      kind: kind, alarmClass: alarmClass, mowerName: "Robbie", reason: "wheel_slip")
  }

  func json(_ delivery: ChannelDelivery, imageURL: String? = nil) -> String {
    String(
      decoding: FCMRequest.body(delivery, imageURL: imageURL, now: Self.now), as: UTF8.self)
  }

  @Test func theAlarmsMessageIsHighPriorityWithNeitherImageNorImageURL() {
    #expect(
      json(Self.delivery())
        == #"{"message":{"android":{"notification":{"tag":"0f8e2f4c-1111-4222-8333-944455556666"},"#
        + #""priority":"HIGH","ttl":"1790s"},"data":{"body":"Someone lifted the mower. Check on it now.","#
        + #""kind":"mower_lifted","notification_id":"0f8e2f4c-1111-4222-8333-944455556666","#
        + #""title":"Robbie was lifted"},"notification":{"body":"Someone lifted the mower. Check on it now.","#
        + #""title":"Robbie was lifted"},"token":"\#(Self.token)"}}"#)
  }

  @Test func theFollowUpCarriesTheImageInTheTrayAndTheURLInItsDataUnderTheSameTag() {
    #expect(
      json(Self.delivery(followup: true, age: 75), imageURL: Self.imageURL)
        == #"{"message":{"android":{"notification":{"image":"\#(Self.imageURL)","#
        + #""tag":"0f8e2f4c-1111-4222-8333-944455556666"},"priority":"HIGH","ttl":"1725s"},"#
        + #""data":{"body":"Someone lifted the mower. Check on it now.","image_url":"\#(Self.imageURL)","#
        + #""kind":"mower_lifted","notification_id":"0f8e2f4c-1111-4222-8333-944455556666","#
        + #""title":"Robbie was lifted"},"notification":{"body":"Someone lifted the mower. Check on it now.","#
        + #""title":"Robbie was lifted"},"token":"\#(Self.token)"}}"#)
  }

  @Test(arguments: [
    ("theft", "HIGH"), ("error", "HIGH"), ("routine", "NORMAL"), ("unknown", "NORMAL"),
  ])
  func thePriorityFollowsTheAlarmClass(alarmClass: String, priority: String) {
    let message = FCMMessage(
      delivery: Self.delivery(alarmClass: alarmClass), imageURL: nil, now: Self.now)
    #expect(message.android.priority == priority)
  }

  @Test(arguments: [(0.0, "1800s"), (600, "1200s"), (1799.5, "0s"), (4000, "0s")])
  func theTimeToLiveIsWhatIsLeftOfTheHalfHour(age: TimeInterval, ttl: String) {
    let message = FCMMessage(delivery: Self.delivery(age: age), imageURL: nil, now: Self.now)
    #expect(message.android.ttl == ttl)
  }

  @Test func theTextIsTheAlarmsAndNoIdOfAMowerUserOrDeviceIsSent() {
    let delivery = Self.delivery(kind: "mower_stuck", alarmClass: "error")
    let message = FCMMessage(delivery: delivery, imageURL: nil, now: Self.now)
    #expect(message.notification.title == "Robbie needs help")
    #expect(message.notification.body == "The mower's wheels are slipping.")
    #expect(message.data.title == message.notification.title)
    let text = json(delivery)
    for id in [delivery.deviceID, delivery.deliveryID, delivery.eventID] {
      #expect(!text.contains(id.uuidString.lowercased()))
    }
    #expect(!text.contains("mower_id") && !text.contains("user") && !text.contains("device"))
  }
}
