import CNats
import Dispatch
import FoundationEssentials
import Glibc

/// JetStream streams and durable pull consumers. Every JetStream API call blocks in nats.c,
/// so each runs on the client's blocking queue.
public struct JetStream: Sendable {
  public let client: NATSClient

  public init(client: NATSClient) { self.client = client }

  /// How long a stream keeps a message: no redelivery comes later than this, which is what
  /// lets the PruneWorker remove the rows that make a redelivery a no-op (ADR 0018).
  public static let streamMaxAgeSeconds: Int64 = 7 * 86_400

  /// Creates the stream when it does not exist yet, with `replicas` copies (on a cluster,
  /// a majority of them hold every acknowledged message). An existing stream is left as it
  /// is, unless `adjustReplicas`: then its copies are set to `replicas` (an installation
  /// that grew from one nats-server to a cluster). Only the stream's owner adjusts, so a
  /// command-line publisher with another setting never scales the stream down.
  public func ensureStream(
    name: String, subjects: [String], replicas: Int = 1, adjustReplicas: Bool = false,
    maxAgeSeconds: Int64 = streamMaxAgeSeconds
  ) async throws(NATSError) {
    try await blocking { () throws(NATSError) in
      let js = try context()
      defer { jsCtx_Destroy(js) }
      var info: UnsafeMutablePointer<jsStreamInfo>?
      var code = jsErrCode(0)
      let found = js_GetStreamInfo(&info, js, name, nil, &code)
      if found == NATS_OK {
        defer { jsStreamInfo_Destroy(info) }
        guard adjustReplicas, let existing = info?.pointee.Config,
          existing.pointee.Replicas != Int64(replicas)
        else { return }
        var config = existing.pointee
        config.Replicas = Int64(replicas)
        var updated: UnsafeMutablePointer<jsStreamInfo>?
        let status = js_UpdateStream(&updated, js, &config, nil, &code)
        jsStreamInfo_Destroy(updated)
        guard status == NATS_OK else {
          throw NATSError(
            "set stream \(name) to \(replicas) replicas (JetStream error \(code.rawValue))", status)
        }
        return
      }
      guard found == NATS_NOT_FOUND else { throw NATSError("stream info \(name)", found) }
      var config = jsStreamConfig()
      try check(jsStreamConfig_Init(&config), "stream config")
      let cSubjects = subjects.map { strdup($0) }
      defer { for item in cSubjects { free(item) } }
      var subjectPointers = cSubjects.map { UnsafePointer($0) }
      let status = name.withCString { cName in
        subjectPointers.withUnsafeMutableBufferPointer { buffer in
          config.Name = cName
          config.Subjects = buffer.baseAddress
          config.SubjectsLen = Int32(buffer.count)
          config.Storage = js_FileStorage
          config.Retention = js_LimitsPolicy
          config.Replicas = Int64(replicas)
          config.MaxAge = maxAgeSeconds * 1_000_000_000
          config.Duplicates = 120 * 1_000_000_000
          return js_AddStream(&info, js, &config, nil, &code)
        }
      }
      // Another replica may have created it a moment ago.
      if status == NATS_OK || code == jsErrCode(10058) {
        jsStreamInfo_Destroy(info)
        return
      }
      throw NATSError("create stream \(name) (JetStream error \(code.rawValue))", status)
    }
  }

  /// The number of copies the stream keeps and the server that leads it (nil when it has
  /// no leader right now, as during an election): for health reports and the cluster check.
  public struct StreamPlacement: Sendable, Equatable {
    public let replicas: Int
    public let leader: String?
  }

  /// Where the stream lives; nil when it does not exist.
  public func streamPlacement(name: String) async throws(NATSError) -> StreamPlacement? {
    try await blocking { () throws(NATSError) -> StreamPlacement? in
      let js = try context()
      defer { jsCtx_Destroy(js) }
      var info: UnsafeMutablePointer<jsStreamInfo>?
      var code = jsErrCode(0)
      let status = js_GetStreamInfo(&info, js, name, nil, &code)
      defer { jsStreamInfo_Destroy(info) }
      if status == NATS_NOT_FOUND || code == Self.streamNotFound { return nil }
      guard status == NATS_OK, let info else {
        throw NATSError("stream info \(name) (JetStream error \(code.rawValue))", status)
      }
      let replicas = Int(info.pointee.Config?.pointee.Replicas ?? 1)
      let leader = info.pointee.Cluster?.pointee.Leader.map { String(cString: $0) }
      return StreamPlacement(replicas: max(1, replicas), leader: leader)
    }
  }

  /// Binds to the durable pull consumer shared by all replicas, creating it when missing
  /// and updating it when its settings changed (a new ack wait, say), so that a changed
  /// setting never stops the workers.
  public func pullConsumer(
    stream: String, durable: String, filter: String, ackWaitSeconds: Int64 = 30,
    maxAckPending: Int64 = 2_000
  ) async throws(NATSError) -> PullConsumer {
    try await blocking { () throws(NATSError) -> PullConsumer in
      let js = try context()
      var code = jsErrCode(0)
      var config = jsConsumerConfig()
      try check(jsConsumerConfig_Init(&config), "consumer config")
      let ensured: natsStatus = stream.withCString { cStream in
        durable.withCString { cDurable in
          filter.withCString { cFilter in
            config.Durable = cDurable
            config.FilterSubject = cFilter
            config.AckPolicy = js_AckExplicit
            config.AckWait = ackWaitSeconds * 1_000_000_000
            config.MaxDeliver = -1
            config.MaxAckPending = maxAckPending
            config.DeliverPolicy = js_DeliverAll
            var info: UnsafeMutablePointer<jsConsumerInfo>?
            var status = js_GetConsumerInfo(&info, js, cStream, cDurable, nil, &code)
            if status == NATS_NOT_FOUND {
              status = js_AddConsumer(&info, js, cStream, &config, nil, &code)
            } else if status == NATS_OK, let existing = info?.pointee.Config?.pointee,
              existing.AckWait != config.AckWait || existing.MaxAckPending != maxAckPending
            {
              jsConsumerInfo_Destroy(info)
              info = nil
              status = js_UpdateConsumer(&info, js, cStream, &config, nil, &code)
            }
            jsConsumerInfo_Destroy(info)
            return status
          }
        }
      }
      guard ensured == NATS_OK else {
        jsCtx_Destroy(js)
        throw NATSError("ensure consumer \(durable) (JetStream error \(code.rawValue))", ensured)
      }
      var subOptions = jsSubOptions()
      try check(jsSubOptions_Init(&subOptions), "subscribe options")
      var subscription: OpaquePointer?
      let status = stream.withCString { cStream in
        durable.withCString { cDurable in
          subOptions.Stream = cStream
          subOptions.Consumer = cDurable
          return js_PullSubscribe(&subscription, js, filter, durable, nil, &subOptions, &code)
        }
      }
      guard status == NATS_OK, let subscription else {
        jsCtx_Destroy(js)
        throw NATSError("pull subscribe \(durable) (JetStream error \(code.rawValue))", status)
      }
      return PullConsumer(subscription: subscription, context: js, client: client)
    }
  }

  /// What a durable consumer has waiting: messages not yet delivered, and delivered but not
  /// acknowledged.
  public struct ConsumerBacklog: Sendable, Equatable {
    public let pending: UInt64
    public let ackPending: Int64
  }

  /// The consumer's backlog; nil when the stream or the consumer does not exist (nats-server
  /// restarted on empty storage, a stream deleted by mistake), so the caller re-creates them.
  public func consumerBacklog(stream: String, durable: String) async throws(NATSError)
    -> ConsumerBacklog?
  {
    try await blocking { () throws(NATSError) -> ConsumerBacklog? in
      let js = try context()
      defer { jsCtx_Destroy(js) }
      var info: UnsafeMutablePointer<jsConsumerInfo>?
      var code = jsErrCode(0)
      let status = js_GetConsumerInfo(&info, js, stream, durable, nil, &code)
      defer { jsConsumerInfo_Destroy(info) }
      // nats.c answers a missing stream with its JetStream code and a plain error status.
      if status == NATS_NOT_FOUND || code == Self.streamNotFound || code == Self.consumerNotFound {
        return nil
      }
      guard status == NATS_OK, let info else {
        throw NATSError("consumer info \(durable) (JetStream error \(code.rawValue))", status)
      }
      return ConsumerBacklog(
        pending: info.pointee.NumPending, ackPending: info.pointee.NumAckPending)
    }
  }

  /// JetStream's API error codes for a missing stream and a missing consumer.
  static let streamNotFound = jsErrCode(10059)
  static let consumerNotFound = jsErrCode(10014)

  private func context() throws(NATSError) -> OpaquePointer {
    var js: OpaquePointer?
    var options = jsOptions()
    try check(jsOptions_Init(&options), "options")
    options.Wait = 5000
    try check(natsConnection_JetStream(&js, client.connection, &options), "jetstream context")
    return js!
  }

  private func blocking<T: Sendable>(_ work: @escaping @Sendable () throws(NATSError) -> T)
    async throws(NATSError) -> T
  {
    let result: Result<T, NATSError> = await withCheckedContinuation { continuation in
      client.blockingQueue.async {
        continuation.resume(returning: Result { () throws(NATSError) in try work() })
      }
    }
    return try result.get()
  }
}

/// A durable pull consumer. `fetch` blocks in nats.c, so it runs on this consumer's own
/// serial queue: one thread per consumer, never one per message.
public final class PullConsumer: @unchecked Sendable {
  // Immutable after init; nats.c objects are thread-safe and only destroyed in deinit.
  private let subscription: OpaquePointer
  private let context: OpaquePointer
  private let client: NATSClient
  private let queue = DispatchQueue(label: "nats.pull")

  init(subscription: OpaquePointer, context: OpaquePointer, client: NATSClient) {
    self.subscription = subscription
    self.context = context
    self.client = client
  }

  deinit {
    natsSubscription_Destroy(subscription)
    jsCtx_Destroy(context)
  }

  /// Up to `batch` messages, waiting at most `timeout` for the first; empty on timeout.
  public func fetch(batch: Int, timeout: Duration) async throws(NATSError) -> [JetStreamMessage] {
    let milliseconds =
      Int64(timeout.components.seconds * 1000)
      + timeout.components.attoseconds / 1_000_000_000_000_000
    let subscription = SendablePointer(subscription)  // only this serial queue fetches
    let result: Result<[JetStreamMessage], NATSError> = await withCheckedContinuation {
      continuation in
      queue.async {
        var list = natsMsgList()
        var code = jsErrCode(0)
        let status = natsSubscription_Fetch(
          &list, subscription.pointer, Int32(batch), max(1, milliseconds), &code)
        defer { natsMsgList_Destroy(&list) }
        if status == NATS_TIMEOUT {
          continuation.resume(returning: .success([]))
          return
        }
        guard status == NATS_OK else {
          continuation.resume(returning: .failure(NATSError("fetch", status)))
          return
        }
        var messages: [JetStreamMessage] = []
        for index in 0..<Int(list.Count) {
          guard let message = list.Msgs[index] else { continue }
          // Take ownership: the list must not destroy what we keep for the ack.
          list.Msgs[index] = nil
          messages.append(JetStreamMessage(owning: message))
        }
        continuation.resume(returning: .success(messages))
      }
    }
    return try result.get()
  }
}

/// One message from a pull consumer, kept alive until it is acknowledged.
public final class JetStreamMessage: @unchecked Sendable {
  // Owned; acked at most through nats.c's thread-safe API and destroyed in deinit.
  private let message: OpaquePointer
  public let subject: String
  public let data: [UInt8]
  public let streamSequence: UInt64
  public let deliveryCount: UInt64
  /// When the stream stored the message: how long it has waited.
  public let storedAt: Date

  init(owning message: OpaquePointer) {
    self.message = message
    let copy = NATSMessage(copying: message)
    subject = copy.subject
    data = copy.data
    var meta: UnsafeMutablePointer<jsMsgMetaData>?
    if natsMsg_GetMetaData(&meta, message) == NATS_OK, let meta {
      streamSequence = meta.pointee.Sequence.Stream
      deliveryCount = meta.pointee.NumDelivered
      storedAt = Date(timeIntervalSince1970: Double(meta.pointee.Timestamp) / 1_000_000_000)
      jsMsgMetaData_Destroy(meta)
    } else {
      streamSequence = 0
      deliveryCount = 0
      storedAt = Date()
    }
  }

  deinit { natsMsg_Destroy(message) }

  /// Acknowledges the message: JetStream will not deliver it again.
  public func ack() throws(NATSError) {
    try check(natsMsg_Ack(message, nil), "ack")
  }

  /// Asks for redelivery later (after a failure that is not the message's fault).
  public func nak() throws(NATSError) {
    try check(natsMsg_Nak(message, nil), "nak")
  }

  /// Tells JetStream the message is still being worked on: its ack wait starts again, so a
  /// message retried through an outage is not redelivered to another replica meanwhile.
  public func inProgress() throws(NATSError) {
    try check(natsMsg_InProgress(message, nil), "in progress")
  }
}
