import Events
import Foundation
import TestSupport

/// Issue 23's benchmark for FCM (`fcm`): the FCM double as the channel benchmark drives it.
/// Each message goes with an OAuth access token the worker got from the double's token
/// endpoint for a signed service-account assertion.
extension FCMSandboxHarness: BenchedDouble {
  static let platform = DevicePlatform.fcm
  static let worker = "FCMWorker"
  static let deviceNoun = "registration tokens"

  static func startDouble(environment: [String: String], record: URL) async throws -> Self {
    try await start(environment: environment, record: record)
  }

  func newDevice() async throws -> DeviceAddress { try .checkedFCM(token: try await makeToken()) }

  func refusedSends() throws -> Int {
    try recordLines().filter { $0.route == "send" && $0.status != 200 }.count
  }

  /// One access token should serve the whole run (it lasts an hour): more grants would
  /// mean the worker signs and fetches tokens it does not need, inside the figure.
  func notes() throws -> [String] {
    ["access tokens granted by the token endpoint: \(try grants().count)"]
  }
}
