import CMicroHTTPD
import CMicroHTTPDShim
import FoundationEssentials
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: a pool of threads, each with its own epoll loop,
/// answering through an `HTTPRouter`. Replies that must wait (`HTTPReply.later`) suspend
/// their connection and run as tasks, so no pool thread ever waits for PostgreSQL.
///
/// ```swift
/// var router = HTTPRouter()
/// router.addHealthAndMetrics(pool: pool, nats: nats, metrics: metrics)
/// let server = try HTTPServer.start(listen: configuration.httpListen, router: router, ...)
/// await server.run()  // until the task is cancelled
/// ```
public final class HTTPServer: Sendable {
  public struct Options: Sendable {
    /// Pool threads; each accepts and serves connections on its own epoll loop.
    public var threads: Int
    public var connectionLimit: Int
    /// An idle keep-alive connection is closed after this many seconds.
    public var connectionTimeoutSeconds: Int
    /// Request bodies above this are answered 413.
    public var maxBodyBytes: Int
    /// Request line and headers above this are refused by libmicrohttpd (414/431).
    public var maxHeaderBytes: Int
    /// A suspended request whose work has not answered within this is answered 503 (the
    /// work may go on; its answer is dropped).
    public var workDeadline: Duration
    /// Serve HTTPS (HTTP/1.1 over TLS, no ALPN) with this certificate; nil serves plain HTTP.
    public var tls: TLSIdentity?
    /// Proxies whose `X-Forwarded-For` names the client (`HTTPRequest.clientAddress`).
    public var trustedProxies: TrustedProxies
    /// What the server is for, in its `listening` line (`"monitoring"`), so that a reader
    /// of the log tells a process's two listeners apart; nil for none.
    public var purpose: String?

    public init(
      threads: Int = max(2, ProcessInfo.processInfo.activeProcessorCount),
      connectionLimit: Int = 4096, connectionTimeoutSeconds: Int = 30,
      maxBodyBytes: Int = 16 * 1024, maxHeaderBytes: Int = 16 * 1024,
      workDeadline: Duration = .seconds(30), tls: TLSIdentity? = nil,
      trustedProxies: TrustedProxies = .none, purpose: String? = nil
    ) {
      self.threads = threads
      self.connectionLimit = connectionLimit
      self.connectionTimeoutSeconds = connectionTimeoutSeconds
      self.maxBodyBytes = maxBodyBytes
      self.maxHeaderBytes = maxHeaderBytes
      self.workDeadline = workDeadline
      self.tls = tls
      self.trustedProxies = trustedProxies
      self.purpose = purpose
    }
  }

  /// A server certificate chain and its private key, both PEM text, handed to libmicrohttpd
  /// (GnuTLS) as they are: a certificate or key it cannot read makes `start` fail.
  public struct TLSIdentity: Sendable {
    public var certificateChainPEM: String
    public var privateKeyPEM: String

    public init(certificateChainPEM: String, privateKeyPEM: String) {
      self.certificateChainPEM = certificateChainPEM
      self.privateKeyPEM = privateKeyPEM
    }
  }

  /// The port listened on (the one chosen when asked for port 0).
  public let port: Int
  private let daemon: SendablePointer
  private let core: Unmanaged<HTTPServerCore>
  private let settings: DaemonSettings
  private let stopped = Mutex(false)
  private let logger: Logger
  /// Answers the suspended requests that outlive `Options.workDeadline`.
  private let sweeper: Task<Void, Never>

  private init(
    daemon: OpaquePointer, port: Int, core: Unmanaged<HTTPServerCore>, settings: DaemonSettings,
    logger: Logger
  ) {
    self.daemon = SendablePointer(daemon)
    self.port = port
    self.core = core
    self.settings = settings
    self.logger = logger
    let swept = core.takeUnretainedValue()
    sweeper = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(100))
        swept.sweepDeadlines()
      }
    }
  }

  /// Starts listening on `listen` (`host:port`, port 0 picks a free one) and logs
  /// `{"msg":"listening","port":...}`.
  public static func start(
    listen: String, router: HTTPRouter, logger: Logger, metrics: Metrics,
    options: Options = Options()
  ) throws(HTTPServerError) -> HTTPServer {
    let address = try ListenAddress(listen)
    let core = Unmanaged.passRetained(
      HTTPServerCore(
        router: router, logger: logger, metrics: metrics, maxBodyBytes: options.maxBodyBytes,
        workDeadline: options.workDeadline, trustedProxies: options.trustedProxies))
    let settings = DaemonSettings(address: address, options: options, core: core.toOpaque())
    guard let daemon = mowdeck_mhd_start(settings.pointer) else {
      core.release()
      settings.deallocate()
      throw .cannotListen(listen)
    }
    let port = Int(mowdeck_mhd_bound_port(daemon))
    var fields: [String: any Sendable] = [
      "address": listen, "port": port, "threads": options.threads,
    ]
    if let purpose = options.purpose { fields["purpose"] = purpose }
    logger.info("listening", fields)
    return HTTPServer(daemon: daemon, port: port, core: core, settings: settings, logger: logger)
  }

  /// Serves until a graceful shutdown is requested or the calling task is cancelled, then
  /// stops.
  public func run() async {
    if let shutdown = GracefulShutdown.current {
      // Returns when stopping is requested (the requests in progress then finish in
      // `stop`) or when the task is cancelled.
      await shutdown.wait()
    } else {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(3600))
      }
    }
    await stop()
  }

  /// Stops accepting connections, lets the requests in progress finish (their work and
  /// the sending of their responses, at most `grace`), then stops the daemon, which closes
  /// idle keep-alive connections. libmicrohttpd must not be stopped with a connection
  /// suspended: requests arriving meanwhile on open connections are answered 503 at once.
  public func stop(grace: Duration = .seconds(10)) async {
    let alreadyStopped = stopped.withLock { done in
      defer { done = true }
      return done
    }
    guard !alreadyStopped else { return }
    let core = self.core.takeUnretainedValue()
    core.stopAccepting()
    let listening = MHD_quiesce_daemon(daemon.pointer)
    if listening >= 0 { close(listening) }
    let deadline = ContinuousClock.now + grace
    while core.requestsInProgress > 0, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(5))
    }
    if core.requestsInProgress > 0 {
      logger.warning("stopping with requests in progress", ["requests": core.requestsInProgress])
    }
    // Past the grace, unsent answers may be cut off, but a suspended connection must still
    // be resumed first (stopping with one would leak it or worse): the sweep resumes every
    // one within the work deadline.
    while core.requestsSuspended > 0 {
      try? await Task.sleep(for: .milliseconds(5))
    }
    sweeper.cancel()
    MHD_stop_daemon(daemon.pointer)
    // No callback runs after MHD_stop_daemon has returned: now C's references may go.
    self.core.release()
    settings.deallocate()
  }
}

/// The settings struct handed to the shim, with the socket address it points to. Both must
/// stay put until the daemon has stopped (its logger reads the settings).
struct DaemonSettings: @unchecked Sendable {
  // Written once here, read by C until `deallocate` after MHD_stop_daemon.
  let pointer: UnsafeMutablePointer<mowdeck_mhd_settings>
  private let address: UnsafeMutablePointer<sockaddr_storage>
  /// NUL-terminated copies of the TLS certificate and key (nil for plain HTTP).
  private let certificate: UnsafeMutablePointer<CChar>?
  private let key: UnsafeMutablePointer<CChar>?

  init(address listen: ListenAddress, options: HTTPServer.Options, core: UnsafeMutableRawPointer) {
    address = .allocate(capacity: 1)
    address.initialize(to: listen.storage)
    pointer = .allocate(capacity: 1)
    certificate = options.tls.map { strdup($0.certificateChainPEM) }
    key = options.tls.map { strdup($0.privateKeyPEM) }
    let socketAddress = UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr.self)
    pointer.initialize(
      to: mowdeck_mhd_settings(
        address: socketAddress, threads: UInt32(options.threads),
        connection_limit: UInt32(options.connectionLimit),
        connection_timeout: UInt32(options.connectionTimeoutSeconds),
        connection_memory_limit: options.maxHeaderBytes,
        handler: accessCallback, handler_cls: core, uri: uriCallback, uri_cls: core,
        completed: completedCallback, completed_cls: core, log: logCallback, log_cls: core,
        tls_certificate: certificate.map { UnsafePointer($0) },
        tls_key: key.map { UnsafePointer($0) }))
  }

  func deallocate() {
    pointer.deallocate()
    address.deallocate()
    free(certificate)
    if let key {
      // The private key should not linger in freed memory.
      memset(key, 0, strlen(key))
      free(key)
    }
  }
}
