import CNats
import Synchronization

/// Request/reply without a thread per request: one wildcard subscription on the client's
/// inbox receives every reply, and each is handed to the task waiting for its token.
final class RequestMux: Sendable {
  private struct Waiter {
    let continuation: CheckedContinuation<NATSMessage, any Error>
    let subject: String
    let admit: (@Sendable (Int) -> Bool)?
  }

  private struct State {
    var nextToken: UInt64 = 0
    var waiting: [UInt64: Waiter] = [:]
  }

  let prefix: String
  private let state = Mutex(State())
  // nats.c subscriptions are thread-safe; the Mutex only guards setting it once.
  private let subscription = Mutex<SendablePointer?>(nil)

  init(prefix: String) { self.prefix = prefix }

  func start(on client: NATSClient) throws(NATSError) {
    var sub: OpaquePointer?
    // Retained for the subscription's life: released by its completion callback, after
    // nats.c's last reply callback, never while one may still run.
    let context = Unmanaged.passRetained(self).toOpaque()
    let status = natsConnection_Subscribe(&sub, client.connection, prefix + "*", onReply, context)
    guard status == NATS_OK, let sub else {
      Unmanaged<RequestMux>.fromOpaque(context).release()
      throw NATSError("subscribe to the reply inbox", status)
    }
    natsSubscription_SetOnCompleteCB(sub, onMuxComplete, context)
    subscription.withLock { $0 = SendablePointer(sub) }
  }

  /// Ends the reply subscription (the client is closing).
  func stop() {
    subscription.withLock { sub in
      if let sub {
        natsSubscription_Unsubscribe(sub.pointer)
        natsSubscription_Destroy(sub.pointer)
      }
      sub = nil
    }
  }

  func request(
    subject: String, data: [UInt8], contentType: String?, headers: [String: String],
    timeout: Duration, admit: (@Sendable (Int) -> Bool)?, client: NATSClient
  ) async throws(NATSError) -> NATSMessage {
    let token = state.withLock { state -> UInt64 in
      state.nextToken += 1
      return state.nextToken
    }
    let reply = prefix + String(token)
    // The timeout's sleeper ends with the request: a camera answering in 1 s must not leave
    // a task asleep for the other 19 (a PhotoWorker has hundreds of requests in flight).
    var timer: Task<Void, Never>?
    defer { timer?.cancel() }
    do {
      let message = try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          let waiter = Waiter(continuation: continuation, subject: subject, admit: admit)
          state.withLock { $0.waiting[token] = waiter }
          // Cancelled before the waiter was registered: the handler found nothing to resume.
          if Task.isCancelled {
            resume(token, with: .failure(CancellationError()))
            return
          }
          do {
            try client.publish(
              subject, data, reply: reply, contentType: contentType, headers: headers)
          } catch {
            resume(token, with: .failure(error))
            return
          }
          timer = Task {
            do { try await Task.sleep(for: timeout) } catch { return }
            self.resume(token, with: .failure(NATSError.timeout(subject: subject)))
          }
        }
      } onCancel: {
        resume(token, with: .failure(CancellationError()))
      }
      if message.isNoResponders { throw NATSError.noResponders(subject: subject) }
      return message
    } catch let error as NATSError {
      throw error
    } catch {
      throw NATSError.cancelled(subject: subject)
    }
  }

  /// Resumes the waiter for `token` once; later calls for the same token do nothing.
  /// `result` is only made for a waiter still there: a camera answering after its timeout
  /// costs no copy of its photo. With `replyBytes`, the waiter's admission is asked first;
  /// a reply it refuses is not made either, and the waiter gets `replyRefused`.
  func resume(
    _ token: UInt64, replyBytes: Int? = nil,
    with result: @autoclosure () -> Result<NATSMessage, any Error>
  ) {
    guard let waiter = state.withLock({ $0.waiting.removeValue(forKey: token) }) else { return }
    if let replyBytes, let admit = waiter.admit, !admit(replyBytes) {
      waiter.continuation.resume(
        throwing: NATSError.replyRefused(subject: waiter.subject, bytes: replyBytes))
      return
    }
    waiter.continuation.resume(with: result())
  }
}

private func onMuxComplete(_ context: UnsafeMutableRawPointer?) {
  guard let context else { return }
  Unmanaged<RequestMux>.fromOpaque(context).release()
}

private func onReply(
  _: OpaquePointer?, _: OpaquePointer?, _ message: OpaquePointer?,
  _ context: UnsafeMutableRawPointer?
) {
  guard let message else { return }
  defer { natsMsg_Destroy(message) }
  guard let context else { return }
  let mux = Unmanaged<RequestMux>.fromOpaque(context).takeUnretainedValue()
  let subject = String(cString: natsMsg_GetSubject(message))
  guard let dot = subject.lastIndex(of: "."),
    let token = UInt64(subject[subject.index(after: dot)...])
  else { return }
  // A no-responders status is no reply to admit: it carries nothing, and must stay itself.
  let bytes = natsMsg_IsNoResponders(message) ? nil : Int(natsMsg_GetDataLength(message))
  mux.resume(token, replyBytes: bytes, with: .success(NATSMessage(copying: message)))
}
