import Events
import Foundation
import Infrastructure

/// The sandbox's one thread: poll(2) over the listening socket, a wake-up pipe and every
/// connection, with the earliest slow answer as the timeout. Everything the loop touches
/// (connections, sessions, the behaviour table, the record file) belongs to this thread.
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

  init(options: SandboxOptions, wake: WakePipe, logger: Logger) throws(SandboxError) {
    tls = try TLSContext(
      certificateChain: options.certificatePath, privateKey: options.privateKeyPath)
    let verifier = ProviderTokenVerifier(
      publicKey: try ES256PublicKey(pemFile: options.publicKeyPath), keyID: options.keyID,
      teamID: options.teamID)
    let behaviours = try BehaviourTable(
      flags: options.behaviours, filePath: options.behaviourFile, logger: logger)
    let recorder = try options.recordPath.map { path throws(SandboxError) in
      try Recorder(path: path)
    }
    context = ConnectionContext(
      handler: PushHandler(
        check: PushCheck(topic: options.topic, verifier: verifier), behaviours: behaviours),
      recorder: recorder, callbacks: try HTTP2Callbacks(),
      maxConcurrentStreams: options.maxConcurrentStreams, logger: logger)
    listener = try Listener(host: options.host, port: options.port)
    self.wake = wake
    logger.info(
      "listening",
      [
        "host": options.host, "port": Int(listener.port), "topic": options.topic,
        "team_id": options.teamID, "key_id": options.keyID,
        "record": options.recordPath ?? "", "behaviours": options.behaviours.count,
        "behaviour_file": options.behaviourFile ?? "",
      ])
  }

  /// Serves until the wake pipe is written to.
  func run() {
    while true {
      var descriptors = [
        pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
      ]
      for connection in connections {
        descriptors.append(pollfd(fd: connection.socket, events: connection.pollEvents, revents: 0))
      }
      let ready = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds())
      if ready < 0, errno != EINTR {
        context.logger.error("poll failed", ["error": SandboxError.systemError("poll")])
        break
      }
      if descriptors[0].revents != 0 { break }
      if descriptors[1].revents != 0 { acceptAll() }
      // Connections accepted just now are not in `descriptors`; they are served next time.
      for (index, descriptor) in descriptors.enumerated().dropFirst(2) where descriptor.revents != 0
      {
        connections[index - 2].service()
      }
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
          "cannot start TLS on a connection", ["error": SandboxError.openSSLErrors()])
        close(socket)
        continue
      }
      connections.append(connection)
      context.logger.debug("connection", ["connection": connectionCount])
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

/// A pipe whose write end stops the loop from another thread (the service, on SIGTERM).
struct WakePipe: Sendable {
  let readEnd: Int32
  let writeEnd: Int32

  init() throws(SandboxError) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else {
      throw SandboxError(
        .cannotListen(address: "wake pipe"), detail: SandboxError.systemError("pipe2"))
    }
    readEnd = ends[0]
    writeEnd = ends[1]
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
  }

  func wake() {
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }

  func close() {
    Foundation.close(readEnd)
    Foundation.close(writeEnd)
  }
}
