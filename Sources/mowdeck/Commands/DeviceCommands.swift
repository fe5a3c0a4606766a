import Events
import FoundationEssentials
import Infrastructure

/// `mowdeck device add`: registers a device of any platform for a user, checked as the
/// registration route checks it (docs/interfaces.md#devices).
struct DeviceAddCommand: Command {
  static let path = ["device", "add"]
  static let usage = """
    mowdeck device add --user USER_ID [--platform apns] --token 64_HEX_DIGITS [--environment production|sandbox]
           mowdeck device add --user USER_ID --platform webpush --endpoint URL --p256dh KEY --auth SECRET
           mowdeck device add --user USER_ID --platform fcm --token REGISTRATION_TOKEN
           mowdeck device add --user USER_ID --platform ntfy
    """
  static let summary = "register a device (APNs, Web Push, FCM or ntfy) for a user"
  static let grammar = Grammar(
    options: ["user", "platform", "token", "environment", "endpoint", "p256dh", "auth"])

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let user = try arguments.required("user")
    let address = try address(arguments, context.configuration)
    do {
      let id = try await Directory(pool: context.pool()).addDevice(userID: user, address: address)
      say("device \(id.uuidString.lowercased()) \(address.platform.rawValue)")
      if case .ntfy(let topic) = address, let ntfyURL = context.configuration.ntfyURL {
        say("subscribe \(ntfyURL)/\(topic)")
      }
    } catch let failure as Directory.Failure {
      throw UsageError(failure.description)
    }
  }

  private static func address(_ arguments: Arguments, _ configuration: Configuration) throws
    -> DeviceAddress
  {
    do {
      switch arguments.option("platform") ?? "apns" {
      case "apns":
        return try .checkedAPNs(
          token: try arguments.required("token"),
          environment: arguments.option("environment"))
      case "webpush":
        return try .checkedWebPush(
          endpoint: try arguments.required("endpoint"), p256dh: try arguments.required("p256dh"),
          auth: try arguments.required("auth"), allowedHosts: configuration.webPushHosts)
      case "fcm":
        return try .checkedFCM(token: try arguments.required("token"))
      case "ntfy":
        guard configuration.ntfyURL != nil else { throw DeviceAddressError.ntfyNotConfigured }
        return DeviceAddress.newNtfyTopic()
      default:
        throw DeviceAddressError.unknownPlatform
      }
    } catch let error as DeviceAddressError {
      throw UsageError(error.description)
    }
  }
}

/// `mowdeck device list --user USER_ID [--json]`: the user's devices, one line each, without
/// their whole addresses; with `--json`, an array of the objects the device list route answers.
struct DeviceListCommand: Command {
  static let path = ["device", "list"]
  static let usage = "mowdeck device list --user USER_ID [--json]"
  static let summary = "list a user's devices with their platforms"
  static let grammar = Grammar(options: ["user"], flags: ["json"])

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let devices: [DeviceListing]
    do {
      devices = try await Directory(pool: context.pool()).devices(
        ofUser: try arguments.required("user"))
    } catch let failure as Directory.Failure {
      throw UsageError(failure.description)
    }
    if arguments.flag("json") { return sayJSON(devices.map(ListedDevice.init)) }
    for device in devices {
      say(
        [
          device.deviceID.uuidString.lowercased(), device.platform.rawValue,
          device.environment ?? "-", device.addressPrefix,
          device.active ? "active" : "inactive", Timestamp.format(device.registeredAt),
        ].joined(separator: "  "))
    }
  }
}

/// One device of `mowdeck device list --json`, in the shape of `GET
/// /api/v1/notifications/devices` (docs/interfaces.md#devices): `environment` is `null`
/// for platforms without one, `address` only the start of the address.
struct ListedDevice: Encodable {
  let listing: DeviceListing

  enum CodingKeys: String, CodingKey {
    case deviceID = "device_id"
    case platform, environment, address, active
    case registeredAt = "registered_at"
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(listing.deviceID.uuidString.lowercased(), forKey: .deviceID)
    try container.encode(listing.platform.rawValue, forKey: .platform)
    try container.encode(listing.environment, forKey: .environment)
    try container.encode(listing.addressPrefix, forKey: .address)
    try container.encode(listing.active, forKey: .active)
    try container.encode(listing.registeredAt, forKey: .registeredAt)
  }
}

/// `mowdeck device remove --user USER_ID DEVICE_ID`: removes one of the user's devices, as
/// `DELETE /api/v1/notifications/devices/{device}` does. Naming the user guards against a
/// pasted id of someone else's device: that one is refused, not removed.
struct DeviceRemoveCommand: Command {
  static let path = ["device", "remove"]
  static let usage = "mowdeck device remove --user USER_ID DEVICE_ID"
  static let summary = "remove one of a user's devices (its queued deliveries go with it)"
  static let grammar = Grammar(options: ["user"], positional: ["DEVICE_ID"])

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    let user = try arguments.required("user")
    let text = try arguments.positional(0, "DEVICE_ID")
    guard let deviceID = UUID(uuidString: text) else {
      throw UsageError("DEVICE_ID must be a UUID, got \(text)")
    }
    let directory = Directory(pool: context.pool())
    let id = deviceID.uuidString.lowercased()
    guard try await directory.removeDevice(userID: user, deviceID: deviceID) else {
      guard let owner = try await directory.owner(ofDevice: deviceID) else {
        throw CommandFailure("no device \(id)")
      }
      throw CommandFailure("device \(id) belongs to user \(owner), not \(user): not removed")
    }
    say("removed device \(id) of \(user)")
  }
}
