import Foundation
import Infrastructure

/// The server's one thread: poll(2) over the listening socket, the wake-up pipe, the pipe
/// that says tasks have answers, and every connection, with the earliest slow answer as
/// the timeout. Everything the loop touches (connections, sessions, the handler and what
/// it owns) belongs to this thread.
///
/// Limits of a test double: one core's worth of work; each poll rebuilds the descriptor
/// list (fine for tens of connections, not thousands); idle connections are kept forever.
final class EventLoop {
  private let listener: Listener
  private let tls: TLSContext
  private let context: ConnectionContext
  private let wake: WakePipe
  private var connections: [Connection] = []
  private var connectionCount = 0

  /// Binds the listening socket, then makes the handler (which may name the port).
  init(
    settings: HTTP2Server.Settings, wake: WakePipe, completions: Completions, logger: Logger,
    makeHandler: (_ port: UInt16) throws -> (HTTP2Request) -> HTTP2Reply
  ) throws {
    tls = try TLSContext(
      certificateChain: settings.certificatePath, privateKey: settings.privateKeyPath)
    listener = try Listener(host: settings.host, port: settings.port)
    context = ConnectionContext(
      handler: try makeHandler(listener.port), completions: completions,
      callbacks: try HTTP2Callbacks(), settings: settings, logger: logger)
    self.wake = wake
  }

  /// Serves until the wake pipe is written to.
  func run() {
    while true {
      var descriptors = [
        pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
        pollfd(fd: context.completions.readEnd, events: Int16(POLLIN), revents: 0),
      ]
      for connection in connections {
        descriptors.append(pollfd(fd: connection.socket, events: connection.pollEvents, revents: 0))
      }
      let ready = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds())
      if ready < 0, errno != EINTR {
        context.logger.error("poll failed", ["error": HTTP2ServerError.systemError("poll")])
        break
      }
      if descriptors[0].revents != 0 { break }
      if descriptors[1].revents != 0 { acceptAll() }
      // Connections accepted just now are not in `descriptors`; they are served next time.
      for (index, descriptor) in descriptors.enumerated().dropFirst(3) where descriptor.revents != 0
      {
        connections[index - 3].service()
      }
      if descriptors[2].revents != 0 { answerCompleted() }
      let now = ContinuousClock.now
      for connection in connections { connection.answerDue(now: now) }
      connections.removeAll { $0.state == .closed }
    }
    for connection in connections { connection.close(graceful: true) }
    connections.removeAll()
  }

  private func acceptAll() {
    while let socket = listener.accept() {
      connectionCount += 1
      guard
        let connection = Connection(id: connectionCount, socket: socket, tls: tls, context: context)
      else {
        context.logger.warning(
          "cannot start TLS on a connection", ["error": HTTP2ServerError.openSSLErrors()])
        close(socket)
        continue
      }
      connections.append(connection)
      context.logger.debug("connection", ["connection": connectionCount])
    }
  }

  /// Sends the answers tasks have worked out to their streams, where those still are.
  private func answerCompleted() {
    for done in context.completions.take() {
      connections.first { $0.id == done.connection }?.answerLater(
        stream: done.stream, done.response)
    }
  }

  /// Until the earliest slow answer is due; forever when none waits.
  private func timeoutMilliseconds() -> Int32 {
    guard let next = connections.compactMap(\.nextDeadline).min() else { return -1 }
    let left = ContinuousClock.now.duration(to: next)
    guard left > .zero else { return 0 }
    let milliseconds =
      left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
    return Int32(clamping: milliseconds + 1)
  }
}
