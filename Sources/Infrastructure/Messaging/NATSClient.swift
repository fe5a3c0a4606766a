import CNats
import Dispatch
import FoundationEssentials
import Glibc

/// The one NATS connection of a process. nats.c's connection is thread-safe; it reconnects
/// for ever in the background and buffers publishes while disconnected, and the first
/// connect does not block when the server is down (CONTRACT: workers start before NATS).
public final class NATSClient: @unchecked Sendable {
  // Set once in `connect`, destroyed in `deinit`: immutable in between.
  let connection: OpaquePointer
  private let events: Unmanaged<ConnectionEvents>
  let requests: RequestMux
  /// Blocking nats.c calls (flush, JetStream API) run here, off the cooperative pool.
  let blockingQueue = DispatchQueue(label: "nats.blocking", attributes: .concurrent)

  private init(connection: OpaquePointer, events: Unmanaged<ConnectionEvents>, inbox: String) {
    self.connection = connection
    self.events = events
    self.requests = RequestMux(prefix: inbox + ".")
  }

  deinit {
    // The callback context is released by the closed callback, which nats.c runs last:
    // releasing it here would race with a disconnected callback still on its way.
    requests.stop()
    natsConnection_Close(connection)
    natsConnection_Destroy(connection)
  }

  /// Connects (or keeps trying in the background) to `url`, which may list several servers
  /// separated by commas.
  public static func connect(url: String, name: String, logger: Logger) throws(NATSError)
    -> NATSClient
  {
    var options: OpaquePointer?
    try check(natsOptions_Create(&options), "options")
    defer { natsOptions_Destroy(options) }
    let events = Unmanaged.passRetained(ConnectionEvents(logger: logger, url: url))
    let context = events.toOpaque()
    // Every server of a cluster, so that the first connect and every reconnect may go to
    // any of them. (nats.c's SetURL did not connect to a comma-separated list: ADR 0040.)
    try setServers(options, servers(in: url))
    try check(natsOptions_SetName(options, name), "set name")
    try check(natsOptions_SetMaxReconnect(options, -1), "max reconnect")
    try check(natsOptions_SetReconnectWait(options, 250), "reconnect wait")
    try check(natsOptions_SetReconnectBufSize(options, 32 * 1024 * 1024), "reconnect buffer")
    try check(natsOptions_SetTimeout(options, 2000), "timeout")
    try check(natsOptions_SetPingInterval(options, 5000), "ping interval")
    // Publish at once instead of waiting for the flusher thread: alarms are latency-bound.
    try check(natsOptions_SetSendAsap(options, true), "send asap")
    try check(natsOptions_SetDisconnectedCB(options, onDisconnected, context), "callback")
    try check(natsOptions_SetReconnectedCB(options, onReconnected, context), "callback")
    try check(natsOptions_SetClosedCB(options, onClosed, context), "callback")
    try check(
      natsOptions_SetRetryOnFailedConnect(options, true, onConnected, context), "retry connect")

    var connection: OpaquePointer?
    let status = natsConnection_Connect(&connection, options)
    guard status == NATS_OK || status == NATS_NOT_YET_CONNECTED, let connection else {
      events.release()
      throw NATSError("connect", status)
    }
    if status == NATS_NOT_YET_CONNECTED {
      logger.warning("NATS not reachable yet, retrying in the background", ["url": url])
    }
    var inbox: UnsafeMutablePointer<natsInbox>?
    try check(natsInbox_Create(&inbox), "inbox")
    defer { natsInbox_Destroy(inbox) }
    let client = NATSClient(
      connection: connection, events: events,
      inbox: String(cString: inbox!))
    try client.requests.start(on: client)
    return client
  }

  /// The server URLs of `MOWDECK_NATS_URL`: one, or several separated by commas.
  public static func servers(in url: String) -> [String] {
    url.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
  }

  private static func setServers(_ options: OpaquePointer?, _ servers: [String])
    throws(NATSError)
  {
    let copies = servers.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    var pointers = copies.map { UnsafePointer($0) }
    let status = pointers.withUnsafeMutableBufferPointer {
      natsOptions_SetServers(options, $0.baseAddress, Int32($0.count))
    }
    try check(status, "set servers")
  }

  /// Whether the client is connected right now (for health checks).
  public var isConnected: Bool { natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED }

  /// Publishes `data` on `subject`, optionally with a reply subject and a content type.
  public func publish(
    _ subject: String, _ data: [UInt8] = [], reply: String? = nil, contentType: String? = nil,
    headers: [String: String] = [:]
  ) throws(NATSError) {
    if contentType == nil, headers.isEmpty {
      let status = data.withUnsafeBytes { raw in
        reply.map {
          natsConnection_PublishRequest(connection, subject, $0, raw.baseAddress, Int32(raw.count))
        }
          ?? natsConnection_Publish(connection, subject, raw.baseAddress, Int32(raw.count))
      }
      try check(status, "publish")
      return
    }
    var message: OpaquePointer?
    let created = data.withUnsafeBytes { raw in
      natsMsg_Create(
        &message, subject, reply, raw.baseAddress?.assumingMemoryBound(to: CChar.self),
        Int32(raw.count))
    }
    try check(created, "create message")
    defer { natsMsg_Destroy(message) }
    if let contentType {
      try check(natsMsgHeader_Set(message, "Content-Type", contentType), "header")
    }
    for (name, value) in headers { try check(natsMsgHeader_Set(message, name, value), "header") }
    try check(natsConnection_PublishMsg(connection, message), "publish")
  }

  /// Waits until the server has processed everything sent so far (subscriptions included).
  public func flush(timeout: Duration = .seconds(5)) async throws(NATSError) {
    let milliseconds = max(
      1,
      timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    let connection = SendablePointer(connection)  // nats.c connections are thread-safe
    let status: natsStatus = await withCheckedContinuation { continuation in
      blockingQueue.async {
        continuation.resume(
          returning: natsConnection_FlushTimeout(connection.pointer, milliseconds))
      }
    }
    try check(status, "flush")
  }

  /// Sends a request and awaits its reply without holding a thread: all replies arrive on
  /// one wildcard inbox subscription and are matched to their waiting task.
  /// - Parameter admit: asked with the reply's size before it is copied out of nats.c, on
  ///   nats.c's delivery thread; a reply it refuses is dropped and the request throws
  ///   `replyRefused`. Not asked for a late reply, nor for the server's no-responders
  ///   status. A caller holding replies against a memory budget counts them from their
  ///   arrival this way.
  public func request(
    _ subject: String, _ data: [UInt8], contentType: String? = nil, headers: [String: String] = [:],
    timeout: Duration, admit: (@Sendable (_ bytes: Int) -> Bool)? = nil
  ) async throws(NATSError) -> NATSMessage {
    try await requests.request(
      subject: subject, data: data, contentType: contentType, headers: headers, timeout: timeout,
      admit: admit, client: self)
  }

  /// Closes the connection; later calls fail.
  public func close() {
    natsConnection_Close(connection)
  }
}

/// Context of the connection callbacks: they only log.
final class ConnectionEvents: Sendable {
  let logger: Logger
  let url: String

  init(logger: Logger, url: String) {
    self.logger = logger
    self.url = url
  }
}

private func onDisconnected(_ connection: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
  guard let context else { return }
  // nats.c calls this on our own `close()` too: that is no outage, and nothing reconnects.
  if let connection, natsConnection_IsClosed(connection) { return }
  let events = Unmanaged<ConnectionEvents>.fromOpaque(context).takeUnretainedValue()
  events.logger.warning("NATS disconnected, reconnecting", ["url": events.url])
}

private func onReconnected(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
  guard let context else { return }
  let events = Unmanaged<ConnectionEvents>.fromOpaque(context).takeUnretainedValue()
  events.logger.info("NATS reconnected", ["url": events.url])
}

private func onClosed(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
  guard let context else { return }
  Unmanaged<ConnectionEvents>.fromOpaque(context).release()
}

private func onConnected(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
  guard let context else { return }
  let events = Unmanaged<ConnectionEvents>.fromOpaque(context).takeUnretainedValue()
  events.logger.info("NATS connected", ["url": events.url])
}
