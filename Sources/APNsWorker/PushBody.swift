import FoundationEssentials
import Infrastructure

/// The JSON body of the request to APNs (docs/interfaces.md#apns), written through
/// `WireCoding`: the alert, `sound`, `mutable-content` when the phone's extension is to fetch
/// a photo, and our two fields beside `aps`. The phone's extension
/// (apps/mobile/ios/NotificationServiceKit) reads `image_url`.
struct PushBody: Codable, Equatable, Sendable {
  struct APS: Codable, Equatable, Sendable {
    struct Alert: Codable, Equatable, Sendable {
      let title: String
      let body: String
    }

    let alert: Alert
    /// `1` when the notification service extension should run (to fetch `image_url`);
    /// absent otherwise.
    let mutableContent: Int?
    let sound: String

    enum CodingKeys: String, CodingKey {
      case alert
      case mutableContent = "mutable-content"
      case sound
    }
  }

  let aps: APS
  let notificationID: UUID
  /// The signed URL of the alarm's photo; absent without one.
  let imageURL: String?

  enum CodingKeys: String, CodingKey {
    case aps
    case notificationID = "notification_id"
    case imageURL = "image_url"
  }

  init(notificationID: UUID, imageURL: String?, title: String, body: String) {
    aps = APS(
      alert: APS.Alert(title: title, body: body), mutableContent: imageURL == nil ? nil : 1,
      sound: "default")
    self.notificationID = notificationID
    self.imageURL = imageURL
  }

  /// The same body with another alert: what `PushPayload` shortens to fit.
  func with(title: String, body: String) -> PushBody {
    PushBody(notificationID: notificationID, imageURL: imageURL, title: title, body: body)
  }

  /// `notification_id` in lower case, as the event log and the image URL write it;
  /// `UUID`'s own encoding is upper case.
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(aps, forKey: .aps)
    try container.encode(notificationID.uuidString.lowercased(), forKey: .notificationID)
    try container.encodeIfPresent(imageURL, forKey: .imageURL)
  }
}
