/// Where a device's pushes go (docs/interfaces.md#devices). Each platform has its own worker
/// type; a delivery carries its device's platform so that each claims only its own.
public enum DevicePlatform: String, Sendable, Codable, CaseIterable {
  case apns
  case webpush
  case fcm
  case ntfy
}
