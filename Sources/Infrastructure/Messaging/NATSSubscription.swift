import CNats

/// A core NATS subscription delivered as an async sequence. Messages are copied in the
/// nats.c delivery thread and the C message destroyed there; the buffer keeps the oldest
/// `bufferLimit` messages so a slow consumer sheds new load instead of growing unbounded.
public final class NATSSubscription: AsyncSequence, @unchecked Sendable {
  public typealias Element = NATSMessage
  // Set once in `init`; nats.c subscriptions are thread-safe.
  private let subscription: OpaquePointer
  private let stream: AsyncStream<NATSMessage>

  init(client: NATSClient, subject: String, queue: String?, bufferLimit: Int) throws(NATSError) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: NATSMessage.self, bufferingPolicy: .bufferingOldest(bufferLimit))
    let box = Unmanaged.passRetained(SubscriptionContext(continuation: continuation))
    var subscription: OpaquePointer?
    let status =
      if let queue {
        natsConnection_QueueSubscribe(
          &subscription, client.connection, subject, queue, onMessage, box.toOpaque())
      } else {
        natsConnection_Subscribe(
          &subscription, client.connection, subject, onMessage, box.toOpaque())
      }
    guard status == NATS_OK, let subscription else {
      box.release()
      throw NATSError("subscribe to \(subject)", status)
    }
    // The context lives until nats.c promises no more callbacks, then it is released.
    natsSubscription_SetOnCompleteCB(subscription, onComplete, box.toOpaque())
    natsSubscription_SetPendingLimits(subscription, 1_000_000, 512 * 1024 * 1024)
    self.subscription = subscription
    self.stream = stream
  }

  deinit {
    natsSubscription_Unsubscribe(subscription)
    natsSubscription_Destroy(subscription)
  }

  /// Stops delivery; the sequence ends.
  public func unsubscribe() {
    natsSubscription_Unsubscribe(subscription)
  }

  public func makeAsyncIterator() -> AsyncStream<NATSMessage>.Iterator {
    stream.makeAsyncIterator()
  }
}

extension NATSClient {
  /// Subscribes to `subject`; with `queue`, replicas sharing the queue name split the load.
  public func subscribe(_ subject: String, queue: String? = nil, bufferLimit: Int = 100_000)
    throws(NATSError) -> NATSSubscription
  {
    try NATSSubscription(client: self, subject: subject, queue: queue, bufferLimit: bufferLimit)
  }
}

final class SubscriptionContext: Sendable {
  let continuation: AsyncStream<NATSMessage>.Continuation
  init(continuation: AsyncStream<NATSMessage>.Continuation) { self.continuation = continuation }
}

private func onMessage(
  _: OpaquePointer?, _: OpaquePointer?, _ message: OpaquePointer?,
  _ context: UnsafeMutableRawPointer?
) {
  guard let message else { return }
  defer { natsMsg_Destroy(message) }
  guard let context else { return }
  let box = Unmanaged<SubscriptionContext>.fromOpaque(context).takeUnretainedValue()
  box.continuation.yield(NATSMessage(copying: message))
}

private func onComplete(_ context: UnsafeMutableRawPointer?) {
  guard let context else { return }
  let box = Unmanaged<SubscriptionContext>.fromOpaque(context)
  box.takeUnretainedValue().continuation.finish()
  box.release()
}
