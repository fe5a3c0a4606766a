import Events
import Foundation
import Infrastructure
import Testing

@testable import NtfyWorker

/// One attempt's request as the ntfy server reads it: the URL, the headers to the letter,
/// the body.
@Suite struct NtfyRequestTests {
  static let notificationID = UUID(uuidString: "0f8e2f4c-1111-4222-8333-944455556666")!
  static let topic = "mowdeck-0123456789abcdef0123456789abcdef"
  static let settings = NtfySettings(
    serverURL: "https://ntfy.example", token: "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2",
    inboxURL: "https://owner.example/inbox")

  static func delivery(
    followup: Bool = false, kind: String = "mower_lifted", alarmClass: String = "theft",
    mowerName: String? = "Robbie", reason: String? = nil
  ) -> ChannelDelivery {
    ChannelDelivery(
      deliveryID: UUID(), notificationID: notificationID, eventID: UUID(), leaseToken: 1,
      attempt: 1, createdAt: Date(), followup: followup, platform: .ntfy, deviceID: UUID(),
      address: topic, webPushKeys: nil, deviceActive: true, imageID: UUID(), kind: kind,
      alarmClass: alarmClass, mowerName: mowerName, reason: reason)
  }

  static func headers(_ request: HTTPClientRequest) -> [String: String] {
    Dictionary(uniqueKeysWithValues: request.headers)
  }

  @Test func theAlarmsMessageIsPublishedToItsTopicWithEveryHeader() {
    let request = NtfyRequest.make(Self.delivery(), imageURL: nil, settings: Self.settings)
    #expect(request.url == "https://ntfy.example/\(Self.topic)")
    #expect(request.timeoutSeconds == 10)
    #expect(
      String(decoding: request.body, as: UTF8.self) == "Someone lifted the mower. Check on it now.")
    // The golden headers, in order.
    #expect(
      request.headers.map(\.0) == [
        "Content-Type", "Title", "Priority", "Tags", "X-Sequence-ID", "Click", "Authorization",
      ])
    #expect(
      request.headers.map(\.1) == [
        "text/plain; charset=utf-8", "Robbie was lifted", "5", "rotating_light,mower_lifted",
        "0f8e2f4c-1111-4222-8333-944455556666", "https://owner.example/inbox",
        "Bearer tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2",
      ])
  }

  @Test func theFollowUpAddsThePhotoUnderTheSameSequenceID() {
    let first = Self.headers(
      NtfyRequest.make(Self.delivery(), imageURL: nil, settings: Self.settings))
    let imageURL = "https://owner.example/api/v1/notifications/push-images/0f8e?e=1&s=2"
    let followUp = NtfyRequest.make(
      Self.delivery(followup: true), imageURL: imageURL, settings: Self.settings)
    let headers = Self.headers(followUp)
    #expect(headers["X-Sequence-ID"] == first["X-Sequence-ID"])
    #expect(headers["Attach"] == imageURL)
    #expect(headers["Filename"] == "0f8e2f4c-1111-4222-8333-944455556666.jpg")
    // Everything else as in the alarm's own message, so the phone replaces it in place.
    for name in ["Title", "Priority", "Tags", "Click", "Authorization", "Content-Type"] {
      #expect(headers[name] == first[name], "\(name)")
    }
    #expect(first["Attach"] == nil && first["Filename"] == nil)
  }

  @Test(arguments: [
    ("mower_lifted", "theft", "5", "rotating_light,mower_lifted"),
    ("mower_stuck", "error", "4", "warning,mower_stuck"),
    ("mower_finished", "routine", "3", "mower_finished"),
  ])
  func thePriorityAndTagsFollowTheClass(
    kind: String, alarmClass: String, priority: String, tags: String
  ) {
    let headers = Self.headers(
      NtfyRequest.make(
        Self.delivery(kind: kind, alarmClass: alarmClass), imageURL: nil, settings: Self.settings))
    #expect(headers["Priority"] == priority)
    #expect(headers["Tags"] == tags)
  }

  @Test func withoutATokenOrAnInboxThoseHeadersAreLeftOut() {
    let request = NtfyRequest.make(
      Self.delivery(), imageURL: nil,
      settings: NtfySettings(serverURL: "http://ntfy.lan:8080", token: nil, inboxURL: nil))
    #expect(request.url == "http://ntfy.lan:8080/\(Self.topic)")
    let headers = Self.headers(request)
    #expect(headers["Authorization"] == nil)
    #expect(headers["Click"] == nil)
  }

  @Test func aNameInAnyLanguageOrWithALineBreakTravelsAsEncodedWords() throws {
    let name = "Müller's Mäher\r\nX-Evil: 1"
    let title = try #require(
      Self.headers(
        NtfyRequest.make(
          Self.delivery(mowerName: name), imageURL: nil, settings: Self.settings))["Title"])
    #expect(title.utf8.allSatisfy { (32...126).contains($0) })
    #expect(title.hasPrefix("=?UTF-8?B?"))
    #expect(Self.decodeWords(title) == "\(name) was lifted")
    let long = String(repeating: "Ä", count: 200)
    let words = HeaderText.value(long).split(separator: " ")
    #expect(words.count > 1)
    #expect(words.allSatisfy { $0.count <= 75 })
    #expect(Self.decodeWords(HeaderText.value(long)) == long)
    #expect(HeaderText.value("Robbie was lifted") == "Robbie was lifted")
  }

  @Test func noMowerUserOrDeviceIDIsSent() {
    let delivery = Self.delivery()
    let request = NtfyRequest.make(
      delivery, imageURL: "https://owner.example/i?s=1", settings: Self.settings)
    let text =
      request.headers.map { "\($0.0): \($0.1)" }.joined(separator: "\n")
      + String(decoding: request.body, as: UTF8.self)
    for id in [delivery.deviceID, delivery.deliveryID, delivery.eventID] {
      #expect(!text.contains(id.uuidString.lowercased()))
    }
    #expect(!text.contains("m-1") && !text.lowercased().contains("user"))
  }

  @Test func onlyTopicsTheServerCouldHaveMadeArePublishedTo() {
    #expect(NtfyRequest.isValidTopic(Self.topic))
    #expect(!NtfyRequest.isValidTopic("a/../../v1/account"))
    #expect(!NtfyRequest.isValidTopic(""))
    #expect(!NtfyRequest.isValidTopic(String(repeating: "a", count: 65)))
  }

  /// RFC 2047 B words, joined as a decoder joins them.
  static func decodeWords(_ value: String) -> String {
    let bytes = value.split(separator: " ").flatMap { word -> [UInt8] in
      let text = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
      return Array(Data(base64Encoded: String(text)) ?? Data())
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
