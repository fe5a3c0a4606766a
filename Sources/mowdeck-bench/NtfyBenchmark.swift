import Events
import Foundation
import TestSupport

/// Issue 23's benchmark for ntfy (`ntfy`): the ntfy double as the channel benchmark drives
/// it. Each delivery is a publish to its device's topic, kept by the double as a server
/// keeps it for polling phones.
extension NtfySandboxHarness: BenchedDouble {
  static let platform = DevicePlatform.ntfy
  static let worker = "NtfyWorker"
  static let deviceNoun = "topics"

  static func startDouble(environment: [String: String], record: URL) async throws -> Self {
    try await start(environment: environment, record: record)
  }

  /// A fresh topic: an ntfy server takes publishes to any topic, as the real one does.
  func newDevice() async throws -> DeviceAddress { DeviceAddress.newNtfyTopic() }

  func refusedSends() throws -> Int { try records.lines().filter { $0.status != 200 }.count }
}
