import FoundationEssentials
import Infrastructure

/// The fan-out's word that one ingress message is committed (`AlarmDecided`), as a
/// publisher learnt it.
public struct DecidedAlarm: Sendable {
  public let streamSequence: UInt64
  public let eventID: UUID?
  public let outcome: String
  /// When this process learnt of it, for latency figures.
  public let noticedAt: ContinuousClock.Instant
}

/// Publishes alarms on the ingress subject the way upstream does and waits until the
/// fan-out has committed each decision. Used by `mowdeck publish`, `mowdeck replay` and the
/// benchmarks. JetStream's publish acknowledgement gives the stream sequence; the fan-out's
/// `decided` message names it; if that message is lost, the database is asked instead.
public actor AlarmPublisher {
  private let nats: NATSClient
  private let subjects: Subjects
  private let pool: DatabasePool?
  private var arrived: [UInt64: DecidedAlarm] = [:]
  private var waiters: [UInt64: CheckedContinuation<DecidedAlarm?, Never>] = [:]
  private var listener: Task<Void, Never>?

  /// - Parameter streamReplicas: the copies of the alarms stream when this publisher is the
  ///   first to create it (`MOWDECK_JETSTREAM_REPLICAS`); an existing stream keeps its own.
  public init(
    nats: NATSClient, subjects: Subjects, pool: DatabasePool?, streamReplicas: Int = 1
  ) async throws {
    self.nats = nats
    self.subjects = subjects
    self.pool = pool
    let subscription = try nats.subscribe(subjects.alarmDecided)
    try await nats.flush()
    // The stream may not exist yet when no fan-out has run; publishing needs it.
    try await JetStream(client: nats).ensureStream(
      name: subjects.alarmsStream, subjects: [subjects.alarmsWildcard], replicas: streamReplicas)
    listener = Task { [weak self] in
      for await message in subscription {
        guard let message = try? WireCoding.decode(AlarmDecided.self, from: message.data) else {
          continue
        }
        let decided = DecidedAlarm(
          streamSequence: message.streamSequence, eventID: message.eventID,
          outcome: message.outcome, noticedAt: .now)
        await self?.deliver(decided)
      }
    }
  }

  deinit { listener?.cancel() }

  /// Publishes `payload` byte for byte on `subject`; returns the JetStream stream sequence.
  /// With `messageID`, a publish repeated after a lost acknowledgement (NATS restarting) is
  /// stored once: JetStream drops duplicates of a `Nats-Msg-Id` within its window.
  public func publish(subject: String, payload: [UInt8], messageID: String? = nil) async throws
    -> UInt64
  {
    var backoff = Backoff(initial: 0.2, maximum: 2)
    while true {
      do {
        return try await publishOnce(subject: subject, payload: payload, messageID: messageID)
      } catch let error as NATSError {
        // Without an id a retry could store the alarm twice: only idempotent ones retry.
        guard messageID != nil, await backoff.wait() else { throw error }
      }
    }
  }

  private func publishOnce(subject: String, payload: [UInt8], messageID: String?) async throws
    -> UInt64
  {
    let reply = try await nats.request(
      subject, payload, headers: messageID.map { ["Nats-Msg-Id": $0] } ?? [:], timeout: .seconds(5))
    guard let ack = try? WireCoding.decode(PublishAck.self, from: reply.data) else {
      let text = CleanText.clean(bytes: reply.data.prefix(200), maximumCharacters: 200)
      throw NATSError.call(operation: "publish to JetStream", status: text)
    }
    return ack.seq
  }

  /// Publishes and waits until the fan-out has committed the decision.
  public func publishAndWait(
    subject: String, payload: [UInt8], messageID: String? = nil, timeout: Duration
  ) async throws -> DecidedAlarm {
    let sequence = try await publish(subject: subject, payload: payload, messageID: messageID)
    let eventID = (try? WireCoding.decode(AlarmIdentity.self, from: payload))?.eventID
    return try await waitDecided(sequence, eventID: eventID, timeout: timeout)
  }

  /// Waits for the decision about `sequence`, asking the database each second in case the
  /// fan-out's message was lost: by the alarm's `event_id`, which the handled messages are
  /// keyed by (a stream sequence names a message only while its stream lives).
  public func waitDecided(_ sequence: UInt64, eventID: UUID?, timeout: Duration) async throws
    -> DecidedAlarm
  {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if let decided = await wait(sequence, upTo: .seconds(1)) { return decided }
      // The database may be restarting: then ask again next second.
      if let pool, let eventID,
        let row = try? await pool.query(
          "SELECT outcome FROM ingress_messages WHERE correlation_id = \(eventID)"
        ).first
      {
        return DecidedAlarm(
          streamSequence: sequence, eventID: eventID, outcome: try row.string("outcome"),
          noticedAt: .now)
      }
    }
    throw NATSError.timeout(subject: "decision of stream sequence \(sequence)")
  }

  private func wait(_ sequence: UInt64, upTo duration: Duration) async -> DecidedAlarm? {
    if let decided = arrived.removeValue(forKey: sequence) { return decided }
    return await withCheckedContinuation { continuation in
      waiters[sequence] = continuation
      Task {
        try? await Task.sleep(for: duration)
        self.expire(sequence)
      }
    }
  }

  private func expire(_ sequence: UInt64) {
    waiters.removeValue(forKey: sequence)?.resume(returning: nil)
  }

  private func deliver(_ decided: DecidedAlarm) {
    if let waiter = waiters.removeValue(forKey: decided.streamSequence) {
      waiter.resume(returning: decided)
    } else {
      // Decisions about other publishers' alarms arrive too; keep a bounded memory of them.
      if arrived.count > 200_000 { arrived.removeAll() }
      arrived[decided.streamSequence] = decided
    }
  }
}

/// JetStream's publish acknowledgement: `{"stream": ..., "seq": N}`; an error answer has
/// no `seq` and is not one.
private struct PublishAck: Decodable {
  let seq: UInt64
}

/// Just the `event_id` of a payload, when it is a usable one.
private struct AlarmIdentity: Decodable {
  let eventID: UUID

  enum CodingKeys: String, CodingKey { case eventID = "event_id" }
}
