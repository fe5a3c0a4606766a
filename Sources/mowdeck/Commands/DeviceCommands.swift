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

/// `mowdeck device list --user USER_ID`: the user's devices, one line each, without their
/// whole addresses.
struct DeviceListCommand: Command {
  static let path = ["device", "list"]
  static let usage = "mowdeck device list --user USER_ID"
  static let summary = "list a user's devices with their platforms"

  static func run(_ arguments: Arguments, _ context: CommandContext) async throws {
    do {
      let devices = try await Directory(pool: context.pool()).devices(
        ofUser: try arguments.required("user"))
      for device in devices {
        say(
          [
            device.deviceID.uuidString.lowercased(), device.platform.rawValue,
            device.environment ?? "-", device.addressPrefix,
            device.active ? "active" : "inactive", Timestamp.format(device.registeredAt),
          ].joined(separator: "  "))
      }
    } catch let failure as Directory.Failure {
      throw UsageError(failure.description)
    }
  }
}
