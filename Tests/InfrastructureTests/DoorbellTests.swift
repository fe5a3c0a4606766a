import Foundation
import Infrastructure
import TestSupport
import Testing

/// The doorbell that wakes a stage: rung by a NATS message or ending at its sweep timeout;
/// in a queue group, one replica is woken per message instead of every replica.
@Suite struct DoorbellTests {
  /// How long one `wait` took, in seconds.
  static func timed(_ doorbell: Doorbell, timeout: Duration) async -> Double {
    let start = ContinuousClock.now
    await doorbell.wait(timeout: timeout)
    return (ContinuousClock.now - start).seconds
  }

  @Test func aRingEndsTheWaitAndTheTimeoutEndsItOtherwise() async throws {
    let doorbell = Doorbell()
    await doorbell.ring()
    #expect(await Self.timed(doorbell, timeout: .seconds(10)) < 1)
    #expect(await Self.timed(doorbell, timeout: .milliseconds(200)) >= 0.19)
    async let waited = Self.timed(doorbell, timeout: .seconds(10))
    try await Task.sleep(for: .milliseconds(100))
    await doorbell.ring()
    #expect(await waited < 5)
  }

  @Test(arguments: [nil, "replicas"])
  func aMessageRingsOneReplicaOfAQueueGroupOrEveryListener(queue: String?) async throws {
    let client = try connectNATS()
    defer { client.close() }
    let subject = uniqueSubjectPrefix() + ".wake"
    let replicas = [Doorbell(), Doorbell()]
    let listeners = try replicas.map { try $0.listen(to: subject, on: client, queue: queue) }
    defer { for item in listeners { item.cancel() } }
    try await client.flush()
    try client.publish(subject, [])
    try await client.flush()
    // Delivered long before the waits begin; the one rung returns at once.
    try await Task.sleep(for: .milliseconds(500))
    async let first = Self.timed(replicas[0], timeout: .seconds(3))
    async let second = Self.timed(replicas[1], timeout: .seconds(3))
    let woken = [await first, await second].filter { $0 < 1.5 }.count
    #expect(woken == (queue == nil ? 2 : 1))
  }
}
