import Events
import Foundation

/// A user who may see the mower, with the active devices the push goes to.
struct Recipient: Sendable, Equatable {
  struct Device: Sendable, Equatable {
    let deviceID: UUID
    let environment: String
    /// The first characters of the token: enough to tell devices apart in the event log,
    /// never the whole token.
    let tokenPrefix: String
  }

  let userID: String
  let devices: [Device]

  /// Decodes the `recipients` JSON aggregate of `FanoutStore`'s read.
  static func decode(_ json: String) -> [Recipient] {
    guard let data = json.data(using: .utf8),
      let array = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]]
    else { return [] }
    return array.compactMap { item in
      guard let userID = item["user_id"] as? String else { return nil }
      let devices = (item["devices"] as? [[String: Any]] ?? []).compactMap { device -> Device? in
        guard let id = (device["device_id"] as? String).flatMap(UUID.init(uuidString:)),
          let environment = device["environment"] as? String
        else { return nil }
        return Device(
          deviceID: id, environment: environment,
          tokenPrefix: device["token_prefix"] as? String ?? "")
      }
      return Recipient(userID: userID, devices: devices)
    }
  }
}
