// The extension's own class (App/NotificationService/NotificationService.swift), run on Linux
// against the UserNotifications stand-in (LinuxTypeCheck/, ADR 0038). What these tests prove is
// the extension's hand-over logic: the text goes to the system exactly once, unchanged, on every
// path but an attachment. What the real framework does with it is proved on a Mac only.
#if canImport(NotificationServiceExtension)
  import Foundation
  import NotificationServiceKit
  @testable import NotificationServiceExtension
  import Testing
  import UserNotifications

  @Suite("The extension's hand-over, on the UserNotifications stand-in")
  struct ExtensionTests {
    /// Every content the extension hands to the system, in order.
    final class Deliveries: @unchecked Sendable {
      // @unchecked: `contents` is touched under `lock` only.
      private let lock = NSLock()
      private var contents: [UNNotificationContent] = []

      func record(_ content: UNNotificationContent) { lock.withLock { contents.append(content) } }
      var all: [UNNotificationContent] { lock.withLock { contents } }

      /// Waits up to `seconds` for a first delivery.
      func first(within seconds: Double) async throws -> UNNotificationContent? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
          if let first = all.first { return first }
          try await Task.sleep(for: .milliseconds(10))
        }
        return all.first
      }
    }

    private static func request(imageURL: String?) -> UNNotificationRequest {
      let content = UNMutableNotificationContent()
      content.title = "Theft alarm"
      content.body = "m-7-0003 was lifted"
      if let imageURL { content.userInfo = ["image_url": imageURL] }
      return UNNotificationRequest(identifier: "alarm", content: content, trigger: nil)
    }

    @Test("Without image_url the text is delivered at once, the very content that came")
    func noImageURL() {
      let request = Self.request(imageURL: nil)
      let deliveries = Deliveries()
      NotificationService().didReceive(request) { deliveries.record($0) }
      #expect(deliveries.all.count == 1)
      #expect(deliveries.all.first === request.content)
    }

    @Test("An image_url the rules refuse delivers the text unchanged, once")
    func rejectedURL() async throws {
      let request = Self.request(imageURL: "http://example.com/photo.jpg")
      let deliveries = Deliveries()
      let service = NotificationService()
      service.didReceive(request) { deliveries.record($0) }
      let delivered = try await deliveries.first(within: 5)
      #expect(delivered === request.content)
      #expect(delivered?.attachments.isEmpty == true)
      // The system's time running out afterwards adds nothing.
      service.serviceExtensionTimeWillExpire()
      #expect(deliveries.all.count == 1)
    }

    @Test("When time runs out mid-fetch the text goes at once, and the cancelled fetch adds nothing")
    func timeRunsOut() async throws {
      // Accepted by the rules, but nothing listens on port 9: every attempt is a network error,
      // so the fetch would go on asking for 14 s.
      let url =
        "https://127.0.0.1:9/api/v1/notifications/push-images/"
        + "0b7e3f7c-3c0e-4a55-9d3c-2a4f3f1f9a11?e=1700000000&s=c2lnbmF0dXJl"
      _ = try PushImage.accept(url)
      let request = Self.request(imageURL: url)
      let deliveries = Deliveries()
      let service = NotificationService()
      service.didReceive(request) { deliveries.record($0) }
      try await Task.sleep(for: .milliseconds(200))
      #expect(deliveries.all.isEmpty, "delivered before the fetch ended or the time ran out")
      service.serviceExtensionTimeWillExpire()
      #expect(deliveries.all.count == 1)
      #expect(deliveries.all.first === request.content)
      // The fetch sees the cancellation at its next step (within a second); nothing more arrives.
      try await Task.sleep(for: .milliseconds(1500))
      #expect(deliveries.all.count == 1)
    }
  }
#endif
