import Events
import FoundationEssentials
import Infrastructure

/// The HTTP request of one ntfy attempt (docs/interfaces.md#ntfy): `POST <ntfy url>/<topic>`
/// with the alarm's body as the message, `Title`, `Priority` and `Tags` by its class,
/// `Click` (the inbox) and `X-Sequence-ID` = the notification id, so that a repeated
/// delivery, and the photo's follow-up (`Attach`, `Filename`), replace the notification on
/// the phone instead of adding one. Never a mower, user or device id beyond what the text
/// says.
enum NtfyRequest {
  /// Texts are cut well inside ntfy's 4,096-byte message limit and a header's reach.
  static let maximumTitleCharacters = 250
  static let maximumBodyCharacters = 1000

  static func make(_ delivery: ChannelDelivery, imageURL: String?, settings: NtfySettings)
    -> HTTPClientRequest
  {
    let text = AlarmText(
      kind: delivery.kind, mowerName: delivery.mowerName, reason: delivery.reason)
    let sequenceID = delivery.notificationID.uuidString.lowercased()
    // The follow-up keeps the priority: ntfy's Android app files each priority under its own
    // notification channel, and a replacement must land on the notification it replaces.
    var headers: [(String, String)] = [
      ("Content-Type", "text/plain; charset=utf-8"),
      ("Title", HeaderText.value(String(text.title.prefix(maximumTitleCharacters)))),
      ("Priority", String(priority(alarmClass: delivery.alarmClass))),
      ("Tags", HeaderText.value(tags(delivery).joined(separator: ","))),
      ("X-Sequence-ID", sequenceID),
    ]
    if let inbox = settings.inboxURL { headers.append(("Click", HeaderText.value(inbox))) }
    if let imageURL {
      headers.append(("Attach", HeaderText.value(imageURL)))
      headers.append(("Filename", "\(sequenceID).jpg"))
    }
    if let token = settings.token { headers.append(("Authorization", "Bearer \(token)")) }
    return HTTPClientRequest(
      url: "\(settings.serverURL)/\(delivery.address)", headers: headers,
      body: Array(String(text.body.prefix(maximumBodyCharacters)).utf8), timeoutSeconds: 10)
  }

  /// ntfy's 5 (max: long vibration bursts, a pop-over) for theft, 4 (high) for an error, 3
  /// (default) for routine alarms (docs/interfaces.md#alarm-classes).
  static func priority(alarmClass: String) -> Int {
    switch alarmClass {
    case "theft": return 5
    case "error": return 4
    default: return 3
    }
  }

  /// An emoji for the class (ntfy shows a tag named as an emoji short code as the emoji
  /// before the title), then the alarm's kind, shown under the notification.
  static func tags(_ delivery: ChannelDelivery) -> [String] {
    switch delivery.alarmClass {
    case "theft": return ["rotating_light", delivery.kind]
    case "error": return ["warning", delivery.kind]
    default: return [delivery.kind]
    }
  }

  /// What ntfy accepts as a topic: 1 to 64 of `[-_A-Za-z0-9]`. The server makes every topic
  /// (`mowdeck-<32 hex>`); anything else stored would be a path, never a topic.
  static func isValidTopic(_ topic: String) -> Bool {
    (1...64).contains(topic.utf8.count)
      && topic.utf8.allSatisfy { c in
        (65...90).contains(c) || (97...122).contains(c) || (48...57).contains(c) || c == 45
          || c == 95
      }
  }
}
