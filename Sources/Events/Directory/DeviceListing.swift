import FoundationEssentials

/// One device as the operator's listing shows it: never its whole address (an APNs or FCM
/// token, a Web Push endpoint's secret path, an ntfy topic: each lets one push to it).
public struct DeviceListing: Sendable, Equatable {
  public let deviceID: UUID
  public let platform: DevicePlatform
  public let environment: String?
  public let addressPrefix: String
  public let active: Bool
  public let registeredAt: Date
}
