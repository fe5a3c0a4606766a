import Events
import FoundationEssentials
import Infrastructure

/// A user who may see the mower, with the active devices the push goes to.
struct Recipient: Sendable, Equatable {
  struct Device: Sendable, Equatable {
    let deviceID: UUID
    let environment: String
    /// The whole APNs token: it travels only in the handoff to the APNs worker.
    let token: String
    /// When the token was registered: APNs's 410 deactivates only an older registration.
    let registeredAt: Date
  }

  let userID: String
  let devices: [Device]

  /// Decodes the `recipients` JSON aggregate of `FanoutStore`'s read.
  static func decode(_ json: String) -> [Recipient] {
    guard let array = JSON.value(from: json.utf8) as? [[String: Any]] else { return [] }
    return array.compactMap { item in
      guard let userID = item["user_id"] as? String else { return nil }
      let devices = (item["devices"] as? [[String: Any]] ?? []).compactMap { device -> Device? in
        guard let id = (device["device_id"] as? String).flatMap(UUID.init(uuidString:)),
          let environment = device["environment"] as? String,
          let token = device["token"] as? String,
          let registered = JSON.number(device["registered_at"])
        else { return nil }
        return Device(
          deviceID: id, environment: environment, token: token,
          registeredAt: Date(timeIntervalSince1970: registered))
      }
      return Recipient(userID: userID, devices: devices)
    }
  }
}
