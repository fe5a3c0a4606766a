import Events
import FoundationEssentials
import Infrastructure

/// A user who may see the mower, with the active devices the push goes to.
struct Recipient: Sendable, Equatable {
  struct Device: Sendable, Equatable {
    let deviceID: UUID
    let platform: DevicePlatform
    /// `production` or `sandbox` for an APNs device; nil for the other platforms.
    let environment: String?
    /// The device's address on its platform (the whole APNs token travels only in the
    /// handoff to the APNs worker).
    let token: String
    /// When the token was registered: APNs's 410 deactivates only an older registration.
    let registeredAt: Date
  }

  let userID: String
  let devices: [Device]

  /// Decodes the `recipients` JSON aggregate of `FanoutStore`'s read. Every field comes from
  /// a `NOT NULL` column, so a value that does not read is a fault to retry, never a
  /// recipient to leave out.
  static func decode(_ json: String) throws(WireError) -> [Recipient] {
    try WireCoding.decode([RecipientRow].self, from: Array(json.utf8)).map { row in
      Recipient(
        userID: row.userID,
        devices: row.devices.map {
          Device(
            deviceID: $0.deviceID, platform: $0.platform, environment: $0.environment,
            token: $0.token,
            registeredAt: Date(timeIntervalSince1970: $0.registeredAt))
        })
    }
  }
}

/// One element of `json_agg(json_build_object('user_id', ..., 'devices', ...))` as PostgreSQL
/// writes it: `{"user_id" : "u1", "devices" : [{"device_id" : "8fc3...", "environment" :
/// "production", "token" : "ab...", "registered_at" : 1767225600.000000}]}`.
struct RecipientRow: Decodable, Equatable, Sendable {
  struct DeviceRow: Decodable, Equatable, Sendable {
    let deviceID: UUID
    let platform: DevicePlatform
    let environment: String?
    let token: String
    /// `extract(epoch FROM registered_at)`: seconds since 1970, to the microsecond, as a
    /// JSON number (not PostgreSQL's JSON text of a `timestamptz`).
    let registeredAt: Double

    enum CodingKeys: String, CodingKey {
      case deviceID = "device_id"
      case platform, environment, token
      case registeredAt = "registered_at"
    }
  }

  let userID: String
  let devices: [DeviceRow]

  enum CodingKeys: String, CodingKey {
    case userID = "user_id"
    case devices
  }
}
