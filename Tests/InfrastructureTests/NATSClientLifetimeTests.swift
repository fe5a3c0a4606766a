import Foundation
import Infrastructure
import TestSupport
import Testing

/// Releasing a client must be safe however soon it happens. It once was not: `deinit`
/// released the callback context right after `natsConnection_Close`, and nats.c then ran
/// the disconnected callback with the freed pointer, killing the whole test process. The
/// context is now released by the closed callback, which nats.c runs last.
@Suite struct NATSClientLifetimeTests {
  @Test func releasingConnectedClientsDoesNotCrash() async throws {
    let subject = uniqueSubjectPrefix() + ".lifetime"
    for index in 0..<50 {
      let client = try NATSClient.connect(
        url: try TestServers.natsURL(), name: "lifetime-\(index)", logger: TestServers.logger)
      try await client.flush()
      try client.publish(subject, [UInt8(index)])
      if index.isMultiple(of: 2) { client.close() }
    }
    // Give nats.c's callback thread time to run the callbacks of the released clients.
    try await Task.sleep(for: .milliseconds(500))
    let survivor = try connectNATS()
    try await survivor.flush()
    #expect(survivor.isConnected)
  }
}
