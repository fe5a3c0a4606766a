import Infrastructure
import Synchronization
import TestSupport

/// A client of this test run's nats-server. It is kept until the process ends: releasing a
/// `NATSClient` frees the context of its connection callbacks while nats.c may still call
/// them, which crashes the process (see `NATSClientLifetimeTests`).
func connectNATS(_ name: String = "events-tests") throws -> NATSClient {
  let client = try NATSClient.connect(
    url: try TestServers.natsURL(), name: name, logger: TestServers.logger)
  clientsKeptAlive.withLock { $0.append(client) }
  return client
}

private let clientsKeptAlive = Mutex<[NATSClient]>([])

/// Messages gathered by background readers, readable from the test.
final class Inbox: Sendable {
  private let messages = Mutex<[NATSMessage]>([])

  func append(_ message: NATSMessage) { messages.withLock { $0.append(message) } }
  var all: [NATSMessage] { messages.withLock { $0 } }
  var count: Int { messages.withLock { $0.count } }
}

/// Reads `subscription` into `inbox` until the task is cancelled or the subscription ends.
func drain(_ subscription: NATSSubscription, into inbox: Inbox) -> Task<Void, Never> {
  Task {
    for await message in subscription { inbox.append(message) }
  }
}

/// Answers every request on `subscription` with `answer(request)`, until it ends.
func respond(
  on subscription: NATSSubscription, client: NATSClient, contentType: String? = nil,
  _ answer: @escaping @Sendable (NATSMessage) -> [UInt8]
) -> Task<Void, Never> {
  Task {
    for await request in subscription {
      guard let reply = request.reply else { continue }
      try? client.publish(reply, answer(request), contentType: contentType)
    }
  }
}
