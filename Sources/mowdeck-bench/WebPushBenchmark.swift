import Events
import Foundation
import TestSupport

/// Issue 22's benchmark (`webpush`): the Web Push double as the channel benchmark drives
/// it. Each message is encrypted to its subscription and VAPID signed by the worker, then
/// decrypted and checked by the double on the same cores.
extension WebPushSandboxHarness: BenchedDouble {
  static let platform = DevicePlatform.webpush
  static let worker = "WebPushWorker"
  static let deviceNoun = "subscriptions"

  static func startDouble(environment: [String: String], record: URL) async throws -> Self {
    try await start(environment: environment, record: record)
  }

  func newDevice() async throws -> DeviceAddress {
    let subscription = try await subscribe()
    return try .checkedWebPush(
      endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh,
      auth: subscription.keys.auth, allowedHosts: [allowedHost])
  }

  func refusedSends() throws -> Int { try recordLines().filter { $0.status != 201 }.count }
}
