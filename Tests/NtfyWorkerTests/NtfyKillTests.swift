import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// An NtfyWorker killed with SIGKILL while its publishes wait at a slow ntfy server: none is
/// lost, and each one published twice is published under the same sequence id, which
/// replaces rather than doubles on the phone.
@Suite struct NtfyKillTests {
  @Test func aWorkerKilledMidBatchLosesNothingAndRepeatsOnlyUnderTheSameSequenceID()
    async throws
  {
    let stack = try await NtfyStack()
    defer { stack.stop() }
    var topics: [String] = []
    for _ in 0..<10 { topics.append(try await stack.phone(delayMs: 3000)) }
    let alarms = [try await stack.alarm(), try await stack.alarm()]
    var environment = stack.environment
    // Longer than a batch takes at the slow server (20 answers of 3 s on 8 connections).
    environment["MOWDECK_APNS_LEASE_SECONDS"] = "12"
    let first = try WorkerProcess("NtfyWorker", environment: environment)
    defer { first.stop() }
    // Killed once it holds all 20 (their answers take 3 s each).
    try await eventually(timeout: .seconds(30), "the first worker to hold every delivery") {
      try await stack.count(
        "SELECT count(*) AS n FROM deliveries WHERE lease_token IS NOT NULL AND attempts = 1")
        == 20
    }
    try await Task.sleep(for: .milliseconds(500))
    first.kill()
    let second = try WorkerProcess("NtfyWorker", environment: environment)
    defer { second.stop() }
    try await eventually(timeout: .seconds(60), "every delivery to be sent") {
      try await stack.count("SELECT count(*) AS n FROM deliveries WHERE state = 'sent'") == 20
    }
    var sequenceIDs: Set<String> = []
    for eventID in alarms { sequenceIDs.insert(try await stack.sequenceID(eventID)) }
    let lines = try stack.sandbox.records.lines().filter { $0.status == 200 }
    #expect(lines.count >= 20)
    // Every phone got each alarm once: a repeat carries the sequence id of the first.
    for topic in topics {
      let published = lines.filter { $0.topic == topic }.compactMap(\.sequenceID)
      #expect(Set(published) == sequenceIDs, "\(topic): \(published)")
      #expect(try await stack.sandbox.view(topic).count == 2)
    }
  }
}
