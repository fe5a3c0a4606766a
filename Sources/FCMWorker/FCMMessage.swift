import Events
import FoundationEssentials
import Infrastructure

/// The body of one `messages:send` (FCM HTTP v1; docs/interfaces.md#fcm): `{"message":…}`.
struct FCMSendBody: Codable, Equatable, Sendable {
  let message: FCMMessage
}

/// One message to one registration token: the alarm's text for the system tray
/// (`notification`), the same facts for the app (`data`, all strings, as FCM requires), and
/// Android's delivery options. `android.notification.tag` is the notification id, so the
/// photo's follow-up, and a repeated delivery, replace the alarm's notification in place;
/// the follow-up alone carries the signed photo URL (`android.notification.image` and
/// `data.image_url`). Never a mower, user or device id.
struct FCMMessage: Codable, Equatable, Sendable {
  struct Notification: Codable, Equatable, Sendable {
    let title: String
    let body: String
  }

  /// `data`: what the app reads when it handles the message itself (in the foreground).
  struct Payload: Codable, Equatable, Sendable {
    let notificationID: String
    let kind: String
    let title: String
    let body: String
    let imageURL: String?

    enum CodingKeys: String, CodingKey {
      case notificationID = "notification_id"
      case kind, title, body
      case imageURL = "image_url"
    }
  }

  struct Android: Codable, Equatable, Sendable {
    /// `HIGH` or `NORMAL`: the names of FCM's `AndroidMessagePriority`.
    let priority: String
    /// A protobuf Duration: `"1800s"`.
    let ttl: String
    let notification: AndroidNotification
  }

  struct AndroidNotification: Codable, Equatable, Sendable {
    let tag: String
    let image: String?
  }

  /// Each text is cut to this many characters: the message, data included, must stay
  /// under FCM's 4,096 bytes, and alarm texts are far shorter (a mower's name is at most
  /// 64 characters).
  static let maximumTextCharacters = 200

  let token: String
  let notification: Notification
  let data: Payload
  let android: Android

  init(delivery: ChannelDelivery, imageURL: String?, now: Date) {
    let text = AlarmText(
      kind: delivery.kind, mowerName: delivery.mowerName, reason: delivery.reason)
    let title = String(text.title.prefix(Self.maximumTextCharacters))
    let body = String(text.body.prefix(Self.maximumTextCharacters))
    let id = delivery.notificationID.uuidString.lowercased()
    token = delivery.address
    notification = Notification(title: title, body: body)
    data = Payload(
      notificationID: id, kind: delivery.kind, title: title, body: body, imageURL: imageURL)
    // Theft and error alarms wake the phone at once; routine ones may wait for its next
    // maintenance window, as FCM means `NORMAL` for.
    let urgent = delivery.alarmClass == "theft" || delivery.alarmClass == "error"
    // What is left of the message's half hour: FCM drops it, rather than show it late.
    let age = now.timeIntervalSince(delivery.createdAt)
    let ttl = max(0, Int(ChannelBackoff.maximumAgeSeconds - age))
    android = Android(
      priority: urgent ? "HIGH" : "NORMAL", ttl: "\(ttl)s",
      notification: AndroidNotification(tag: id, image: imageURL))
  }
}
