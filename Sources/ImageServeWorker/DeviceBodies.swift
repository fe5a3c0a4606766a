import Events
import FoundationEssentials
import Infrastructure

/// The JSON body of `POST` and `DELETE /api/v1/notifications/apns-devices`, as the phone sends
/// it (docs/interfaces.md#apns-devices; `APNsDevice` in docs/openapi.yaml). Checking the
/// token and the environment is `DeviceRoutes.parse`'s: their 400s say what is wrong.
struct DeviceRequest: Codable, Equatable, Sendable {
  let token: String
  /// `production` or `sandbox`; absent or `null` means `production`.
  let environment: String?
}

/// The 201 answer to a registration: the device's id (lower case, as in every HTTP answer)
/// and the environment it was registered for.
struct DeviceCreated: Codable, Equatable, Sendable {
  let deviceID: UUID
  let environment: String

  enum CodingKeys: String, CodingKey {
    case deviceID = "device_id"
    case environment
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(deviceID.uuidString.lowercased(), forKey: .deviceID)
    try container.encode(environment, forKey: .environment)
  }
}

/// A 400 answer's body, `{"error": "<what is wrong>"}` (`Error` in docs/openapi.yaml).
struct ErrorAnswer: Codable, Equatable, Sendable {
  let error: String
}

/// The body of `GET /api/v1/notifications/devices` (`DeviceList` in docs/openapi.yaml): the
/// signed-in user's devices, oldest registration first, each named by its platform and the start of its
/// address only (a whole address lets anyone push to it).
struct DeviceListAnswer: Codable, Equatable, Sendable {
  struct Device: Codable, Equatable, Sendable {
    let deviceID: UUID
    let platform: String
    let environment: String?
    let address: String
    let active: Bool
    let registeredAt: Date

    enum CodingKeys: String, CodingKey {
      case deviceID = "device_id"
      case platform, environment, address, active
      case registeredAt = "registered_at"
    }

    init(_ listing: DeviceListing) {
      deviceID = listing.deviceID
      platform = listing.platform.rawValue
      environment = listing.environment
      address = listing.addressPrefix
      active = listing.active
      registeredAt = listing.registeredAt
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(deviceID.uuidString.lowercased(), forKey: .deviceID)
      try container.encode(platform, forKey: .platform)
      // `Optional`'s own encoding: `null` when absent, not left out.
      try container.encode(environment, forKey: .environment)
      try container.encode(address, forKey: .address)
      try container.encode(active, forKey: .active)
      try container.encode(registeredAt, forKey: .registeredAt)
    }
  }

  let devices: [Device]
}
