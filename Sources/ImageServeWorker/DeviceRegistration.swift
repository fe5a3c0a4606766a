import Events
import FoundationEssentials
import Infrastructure

/// The JSON body of `POST /api/v1/notifications/devices` (docs/interfaces.md#devices;
/// `DeviceRegistration` in docs/openapi.yaml): `platform` and that platform's fields. For
/// `webpush` it is exactly what the browser's `PushSubscription.toJSON()` gives plus the
/// platform; fields of other platforms, and `expirationTime`, are ignored.
struct DeviceRegistration: Decodable, Equatable, Sendable {
  struct Keys: Decodable, Equatable, Sendable {
    let p256dh: String?
    let auth: String?
  }

  let platform: String?
  let token: String?
  let environment: String?
  let endpoint: String?
  let keys: Keys?

  /// What the server offers beside the body: which push services an endpoint may name,
  /// and the ntfy server, if any.
  struct Offer: Sendable {
    let webPushHosts: [String]
    let ntfyURL: String?
  }

  /// The body checked into an address, or the 400 that names the field.
  static func parse(_ body: [UInt8], offer: Offer) -> Result<DeviceAddress, DeviceRoutes.BadBody> {
    let request: DeviceRegistration
    do {
      request = try WireCoding.decode(DeviceRegistration.self, from: body)
    } catch {
      return .failure(DeviceRoutes.BadBody(registrationError: error))
    }
    do {
      return .success(try request.address(offer: offer))
    } catch {
      return .failure(DeviceRoutes.BadBody(error.description))
    }
  }

  private func address(offer: Offer) throws(DeviceAddressError) -> DeviceAddress {
    switch platform.flatMap(DevicePlatform.init(rawValue:)) {
    case .apns:
      return try .checkedAPNs(token: token ?? "", environment: environment)
    case .webpush:
      return try .checkedWebPush(
        endpoint: endpoint ?? "", p256dh: keys?.p256dh ?? "", auth: keys?.auth ?? "",
        allowedHosts: offer.webPushHosts)
    case .fcm:
      return try .checkedFCM(token: token ?? "")
    case .ntfy:
      guard offer.ntfyURL != nil else { throw .ntfyNotConfigured }
      return DeviceAddress.newNtfyTopic()
    case nil:
      throw .unknownPlatform
    }
  }
}

/// The 201 answer to a registration of any platform: the device's id, its platform, the
/// APNs environment, and for ntfy the topic made for it and where to subscribe.
struct DeviceRegistered: Encodable, Equatable, Sendable {
  let deviceID: UUID
  let platform: DevicePlatform
  let environment: String?
  let topic: String?
  let subscribeURL: String?

  init(deviceID: UUID, address: DeviceAddress, ntfyURL: String?) {
    self.deviceID = deviceID
    platform = address.platform
    switch address {
    case .apns(_, let environment):
      self.environment = environment
      topic = nil
      subscribeURL = nil
    case .ntfy(let topic):
      environment = nil
      self.topic = topic
      subscribeURL = ntfyURL.map { $0 + "/" + topic }
    case .webPush, .fcm:
      environment = nil
      topic = nil
      subscribeURL = nil
    }
  }

  enum CodingKeys: String, CodingKey {
    case deviceID = "device_id"
    case platform, environment, topic
    case subscribeURL = "subscribe_url"
  }

  /// Only the fields of the platform: no `null`s for the others.
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(deviceID.uuidString.lowercased(), forKey: .deviceID)
    try container.encode(platform, forKey: .platform)
    try container.encodeIfPresent(environment, forKey: .environment)
    try container.encodeIfPresent(topic, forKey: .topic)
    try container.encodeIfPresent(subscribeURL, forKey: .subscribeURL)
  }
}
