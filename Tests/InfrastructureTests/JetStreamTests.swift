import Foundation
import Infrastructure
import TestSupport
import Testing

@Suite struct JetStreamTests {
  /// A stream and subjects of this test's own.
  struct Setup {
    let client: NATSClient
    let jetStream: JetStream
    let stream: String
    let subjects: String
    let prefix: String

    init() throws {
      client = try connectNATS()
      jetStream = JetStream(client: client)
      prefix = uniqueSubjectPrefix()
      stream = "T_" + prefix.uppercased()
      subjects = prefix + ".js.>"
    }

    /// Publishes through JetStream and returns the stream sequence of its acknowledgement.
    func publish(_ suffix: String, _ data: [UInt8]) async throws -> Int {
      let ack = try await client.request(prefix + ".js." + suffix, data, timeout: .seconds(5))
      let object = try #require(JSON.object(from: ack.data))
      return try #require(object["seq"]?.integer, "\(object)")
    }
  }

  @Test func ensureStreamTwiceIsFine() async throws {
    let setup = try Setup()
    try await setup.jetStream.ensureStream(name: setup.stream, subjects: [setup.subjects])
    try await setup.jetStream.ensureStream(name: setup.stream, subjects: [setup.subjects])
    #expect(try await setup.publish("a", [1]) == 1)
  }

  @Test func concurrentEnsureStreamCallsAllSucceed() async throws {
    let setup = try Setup()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          try await setup.jetStream.ensureStream(name: setup.stream, subjects: [setup.subjects])
        }
      }
      try await group.waitForAll()
    }
    #expect(try await setup.publish("a", [1]) == 1)
  }

  @Test func fetchReturnsPublishedMessagesInStreamOrder() async throws {
    let setup = try Setup()
    try await setup.jetStream.ensureStream(name: setup.stream, subjects: [setup.subjects])
    var sequences: [Int] = []
    for index in 0..<3 {
      sequences.append(try await setup.publish("m\(index)", [UInt8(index), 0xFF]))
    }
    let consumer = try await setup.jetStream.pullConsumer(
      stream: setup.stream, durable: "reader", filter: setup.subjects)
    let messages = try await consumer.fetch(batch: 3, timeout: .seconds(5))
    #expect(messages.map(\.data) == [[0, 0xFF], [1, 0xFF], [2, 0xFF]])
    #expect(messages.map(\.subject) == (0..<3).map { setup.prefix + ".js.m\($0)" })
    #expect(messages.map { Int($0.streamSequence) } == sequences)
    #expect(messages.map(\.streamSequence) == messages.map(\.streamSequence).sorted())
    #expect(Set(messages.map(\.streamSequence)).count == 3)
    #expect(messages.allSatisfy { $0.deliveryCount == 1 })
    for message in messages { try message.ack() }
    #expect(try await consumer.fetch(batch: 3, timeout: .milliseconds(300)).isEmpty)
  }

  @Test func unackedMessageIsRedeliveredAfterAckWaitAndAckedOneIsNot() async throws {
    let setup = try Setup()
    try await setup.jetStream.ensureStream(name: setup.stream, subjects: [setup.subjects])
    let consumer = try await setup.jetStream.pullConsumer(
      stream: setup.stream, durable: "slow", filter: setup.subjects, ackWaitSeconds: 3)
    let acked = try await setup.publish("acked", [1])
    let dropped = try await setup.publish("dropped", [2])
    let first = try await consumer.fetch(batch: 2, timeout: .seconds(5))
    #expect(first.map { Int($0.streamSequence) } == [acked, dropped])
    try #require(first.count == 2)
    try first[0].ack()
    // first[1] is neither acked nor nakked: the worker "crashed".

    let again = try await consumer.fetch(batch: 1, timeout: .seconds(5))
    try #require(again.count == 1)
    #expect(Int(again[0].streamSequence) == dropped)
    #expect(again[0].deliveryCount == 2)
    #expect(again[0].data == [2])
    try again[0].ack()
    // Longer than the ack wait: neither message comes back.
    #expect(try await consumer.fetch(batch: 2, timeout: .milliseconds(4_000)).isEmpty)
  }

  @Test func nakkedMessageComesBackWithoutWaitingForAckWait() async throws {
    let setup = try Setup()
    try await setup.jetStream.ensureStream(name: setup.stream, subjects: [setup.subjects])
    let consumer = try await setup.jetStream.pullConsumer(
      stream: setup.stream, durable: "nak", filter: setup.subjects, ackWaitSeconds: 30)
    let sequence = try await setup.publish("x", [7])
    let first = try await consumer.fetch(batch: 1, timeout: .seconds(5))
    try #require(first.count == 1)
    try first[0].nak()
    let again = try await consumer.fetch(batch: 1, timeout: .seconds(5))
    try #require(again.count == 1)
    #expect(Int(again[0].streamSequence) == sequence)
    #expect(again[0].deliveryCount == 2)
    try again[0].ack()
  }

  @Test func twoReplicasOfOneDurableShareTheWork() async throws {
    let setup = try Setup()
    try await setup.jetStream.ensureStream(name: setup.stream, subjects: [setup.subjects])
    let other = JetStream(client: try connectNATS("replica-2"))
    let one = try await setup.jetStream.pullConsumer(
      stream: setup.stream, durable: "shared", filter: setup.subjects)
    let two = try await other.pullConsumer(
      stream: setup.stream, durable: "shared", filter: setup.subjects)
    for index in 0..<6 { _ = try await setup.publish("s", [UInt8(index)]) }
    let fromOne = try await one.fetch(batch: 3, timeout: .seconds(5))
    let fromTwo = try await two.fetch(batch: 3, timeout: .seconds(5))
    let all = (fromOne + fromTwo).map(\.streamSequence)
    #expect(all.count == 6)
    #expect(Set(all) == Set(1...6))
    for message in fromOne + fromTwo { try message.ack() }
  }
}
