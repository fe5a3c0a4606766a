import CMicroHTTPD
import Synchronization

/// What libmicrohttpd's callbacks reach through their `cls` pointer: the router, the
/// metrics, and the count of requests in progress. It lives until the daemon has stopped
/// (`HTTPServer` holds the retain it passed to C).
final class HTTPServerCore: Sendable {
  let router: HTTPRouter
  let logger: Logger
  let metrics: Metrics
  let maxBodyBytes: Int
  let plainResponses: PlainResponses
  let libraryLog: ThrottledWarning

  /// Suspended requests, oldest first, for the deadline sweep (HTTPCore+Suspension).
  let waiting: Mutex<SuspendedQueue>
  let workDeadline: Duration
  let trustedProxies: TrustedProxies

  init(
    router: HTTPRouter, logger: Logger, metrics: Metrics, maxBodyBytes: Int,
    workDeadline: Duration, trustedProxies: TrustedProxies
  ) {
    self.trustedProxies = trustedProxies
    self.waiting = Mutex(SuspendedQueue())
    self.workDeadline = workDeadline
    self.router = router
    self.logger = logger
    self.metrics = metrics
    self.maxBodyBytes = maxBodyBytes
    self.plainResponses = PlainResponses()
    self.libraryLog = ThrottledWarning("libmicrohttpd", logger: logger)
    metrics.describe(
      "mowdeck_http_requests_total", type: "counter", help: "HTTP requests by route and status")
    metrics.describe(
      "mowdeck_http_request_seconds", type: "histogram",
      help: "HTTP request latency from request line to response queued")
  }

  /// Requests between their request line and their end (response sent, or connection
  /// gone): what stopping waits for. Idle keep-alive connections are not counted.
  private let activeRequests = Atomic<Int>(0)
  private let stopping = Atomic<Bool>(false)

  func requestStarted() { activeRequests.add(1, ordering: .relaxed) }
  func requestEnded() { activeRequests.subtract(1, ordering: .relaxed) }
  var requestsInProgress: Int { activeRequests.load(ordering: .relaxed) }

  /// From now on, requests are answered 503 with `Connection: close` instead of suspended.
  func stopAccepting() { stopping.store(true, ordering: .relaxed) }
  var isStopping: Bool { stopping.load(ordering: .relaxed) }

  /// Counts the answered request; called once per request, when its response is queued.
  func record(route: String, status: Int, since started: ContinuousClock.Instant) {
    let seconds = (ContinuousClock.now - started).seconds
    metrics.increment(
      "mowdeck_http_requests_total", labels: ["route": route, "status": String(status)])
    metrics.observe("mowdeck_http_request_seconds", seconds, labels: ["route": route])
  }

  deinit { plainResponses.destroy() }
}

/// The bare-status responses (`HTTPResponse.plain`), built once: libmicrohttpd response
/// objects are reference-counted under their own lock and may be queued on any number of
/// connections from any thread, which is what makes sharing them safe.
struct PlainResponses: @unchecked Sendable {
  static let statuses = [400, 401, 404, 405, 410, 413, 500, 503]
  private let responses: [Int: OpaquePointer]

  init() {
    var responses: [Int: OpaquePointer] = [:]
    for status in Self.statuses {
      if let response = HTTPServerCore.makeResponse(.plain(status)) { responses[status] = response }
    }
    self.responses = responses
  }

  subscript(status: Int) -> OpaquePointer? { responses[status] }

  func destroy() {
    for response in responses.values { MHD_destroy_response(response) }
  }
}

extension HTTPServerCore {
  /// A libmicrohttpd response with a copy of the body and every header, plus
  /// `X-Content-Type-Options: nosniff` on everything this server sends.
  static func makeResponse(_ response: HTTPResponse) -> OpaquePointer? {
    let created: OpaquePointer? = response.body.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else {
        return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
      }
      return MHD_create_response_from_buffer(
        raw.count, UnsafeMutableRawPointer(mutating: base), .RESPMEM_MUST_COPY)
    }
    guard let created else { return nil }
    for header in response.headers {
      _ = MHD_add_response_header(created, header.name, header.value)
    }
    if !response.headers.contains(where: { $0.name.caseInsensitiveEquals("X-Content-Type-Options") }
    ) {
      _ = MHD_add_response_header(created, "X-Content-Type-Options", "nosniff")
    }
    return created
  }
}
