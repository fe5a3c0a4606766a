import CCurl
import CCurlShim
import Dispatch
import FoundationEssentials
import Synchronization

/// One request a push worker makes (APNs, Web Push): always a `POST`.
public struct HTTPClientRequest: Sendable {
  public let url: String
  public let headers: [(String, String)]
  public let body: [UInt8]
  public let timeoutSeconds: Int

  public init(url: String, headers: [(String, String)], body: [UInt8], timeoutSeconds: Int) {
    self.url = url
    self.headers = headers
    self.body = body
    self.timeoutSeconds = timeoutSeconds
  }
}

/// What came back: a response (header names in lower case), or why there was none
/// (connection refused, reset, TLS, timeout — each worker's policy retries these).
public enum HTTPClientResult: Sendable, Equatable {
  case response(status: Int, headers: [String: String], body: [UInt8])
  case failure(String)
}

/// An HTTP/2 client on libcurl's multi interface: one TLS connection per host carrying many
/// concurrent streams (`CURLPIPE_MULTIPLEX`, at most one connection per host), kept alive
/// between pushes; curl opens a new one after a GOAWAY or a reset, and speaks HTTP/1.1 to a
/// server that offers no HTTP/2. One thread drives all transfers with `curl_multi_poll`;
/// callers await their transfer, holding no thread. Redirects are never followed: a push
/// goes only to the address stored, never to one a server names.
public final class HTTPClient: @unchecked Sendable {
  // `multi` is touched only by the loop thread, except `curl_multi_wakeup`, which libcurl
  // allows from any thread. `queue` and `stopping` are guarded by Mutexes.
  private let multi: UnsafeMutableRawPointer
  private let caFile: String?
  private let queue = Mutex<[Transfer]>([])
  private let stopping = Mutex(false)
  private let stopped = DispatchSemaphore(value: 0)
  private let threadName: String

  /// - Parameters:
  ///   - threadName: at most 15 characters; names the loop's thread for `top -H` and gdb.
  ///   - connectionsPerHost: 1 for a server known to speak HTTP/2 (APNs), whose one
  ///     connection carries every stream; more for servers that may answer in HTTP/1.1,
  ///     where a connection carries one request at a time.
  public init(caFile: String?, threadName: String, connectionsPerHost: Int = 1) {
    curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    multi = curl_multi_init()!
    self.caFile = caFile
    self.threadName = threadName
    _ = mowdeck_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    _ = mowdeck_curl_multi_setopt_long(
      multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, connectionsPerHost))
    _ = mowdeck_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000)
    // The loop owns its queue's thread for the client's lifetime, as a pull consumer does.
    DispatchQueue(label: threadName).async { [unowned self] in self.loop() }
  }

  /// Stops the loop; transfers still running fail.
  public func shutdown() {
    stopping.withLock { $0 = true }
    curl_multi_wakeup(multi)
    stopped.wait()
  }

  public func send(_ request: HTTPClientRequest) async -> HTTPClientResult {
    await withCheckedContinuation { continuation in
      guard let transfer = Transfer(request: request, caFile: caFile, continuation: continuation)
      else {
        continuation.resume(returning: .failure("cannot create a curl handle"))
        return
      }
      queue.withLock { $0.append(transfer) }
      curl_multi_wakeup(multi)
    }
  }

  private func loop() {
    // The queue's thread is this loop's for the client's life: named for `top -H` and gdb.
    mowdeck_curl_name_loop_thread(threadName)
    var active: [UnsafeMutableRawPointer: Transfer] = [:]
    while !stopping.withLock({ $0 }) {
      for transfer in queue.withLock({ queue in
        defer { queue.removeAll() }
        return queue
      }) {
        curl_multi_add_handle(multi, transfer.easy)
        active[transfer.easy] = transfer
      }
      var running: Int32 = 0
      curl_multi_perform(multi, &running)
      var left: Int32 = 0
      while let message = curl_multi_info_read(multi, &left) {
        guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
          let transfer = active.removeValue(forKey: easy)
        else { continue }
        let code = message.pointee.data.result
        curl_multi_remove_handle(multi, easy)
        transfer.finish(code)
      }
      curl_multi_poll(multi, nil, 0, 1000, nil)
    }
    for (easy, transfer) in active {
      curl_multi_remove_handle(multi, easy)
      transfer.finish(CURLE_ABORTED_BY_CALLBACK)
    }
    for transfer in queue.withLock({ queue in
      defer { queue.removeAll() }
      return queue
    }) {
      transfer.finish(CURLE_ABORTED_BY_CALLBACK)
    }
    curl_multi_cleanup(multi)
    stopped.signal()
  }
}

/// One transfer: its curl handle, header list, and what has arrived. Owned by the loop
/// thread from `add` to `finish`; the write and header callbacks run on that thread.
private final class Transfer: @unchecked Sendable {
  let easy: UnsafeMutableRawPointer
  private var headerList: UnsafeMutablePointer<curl_slist>?
  private var body: [UInt8] = []
  private var responseHeaders: [String: String] = [:]
  private var continuation: CheckedContinuation<HTTPClientResult, Never>?

  init?(
    request: HTTPClientRequest, caFile: String?,
    continuation: CheckedContinuation<HTTPClientResult, Never>
  ) {
    guard let easy = curl_easy_init() else { return nil }
    self.easy = easy
    self.continuation = continuation
    for (name, value) in request.headers {
      headerList = curl_slist_append(headerList, "\(name): \(value)")
    }
    // No "Expect: 100-continue" round trip before the body.
    headerList = curl_slist_append(headerList, "Expect:")
    let context = Unmanaged.passUnretained(self).toOpaque()
    _ = mowdeck_curl_easy_setopt_str(easy, CURLOPT_URL, request.url)
    _ = mowdeck_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
    _ = mowdeck_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
    _ = mowdeck_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
    _ = mowdeck_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeoutSeconds * 1000)
    _ = mowdeck_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, 5000)
    // Never follow a redirect, stated rather than left to libcurl's default: a Web Push
    // endpoint comes from a user, and a push service (or whoever answers at its address)
    // naming another address in `Location` must not make this server post there. A 3xx is
    // handed back as it is, and each channel's policy fails the delivery.
    _ = mowdeck_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
    _ = mowdeck_curl_easy_setopt_long(easy, CURLOPT_POST, 1)
    _ = mowdeck_curl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, request.body.count)
    // COPYPOSTFIELDS: curl keeps its own copy, so the Swift array need not outlive the call.
    request.body.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        _ = mowdeck_curl_easy_setopt_ptr(
          easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
      }
    }
    _ = mowdeck_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
    if let caFile { _ = mowdeck_curl_easy_setopt_str(easy, CURLOPT_CAINFO, caFile) }
    _ = mowdeck_curl_easy_setopt_write(easy, onBody)
    _ = mowdeck_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context)
    _ = mowdeck_curl_easy_setopt_header(easy, onHeader)
    _ = mowdeck_curl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, context)
  }

  deinit {
    curl_easy_cleanup(easy)
    curl_slist_free_all(headerList)
  }

  func append(body chunk: UnsafeBufferPointer<UInt8>) { body.append(contentsOf: chunk) }

  func append(headerLine line: String) {
    guard let colon = line.firstIndex(of: ":") else { return }
    let name = line[..<colon].lowercased()
    let value = line[line.index(after: colon)...].trimmingWhitespace()
    responseHeaders[name] = value
  }

  func finish(_ code: CURLcode) {
    let result: HTTPClientResult
    if code == CURLE_OK {
      var status = 0
      _ = mowdeck_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
      result = .response(status: status, headers: responseHeaders, body: body)
    } else {
      result = .failure(String(cString: curl_easy_strerror(code)))
    }
    continuation?.resume(returning: result)
    continuation = nil
  }
}

private func onBody(
  _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ context: UnsafeMutableRawPointer?
) -> Int {
  guard let data, let context else { return 0 }
  let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
  data.withMemoryRebound(to: UInt8.self, capacity: size * count) {
    transfer.append(body: UnsafeBufferPointer(start: $0, count: size * count))
  }
  return size * count
}

private func onHeader(
  _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ context: UnsafeMutableRawPointer?
) -> Int {
  guard let data, let context else { return 0 }
  let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
  let line = data.withMemoryRebound(to: UInt8.self, capacity: size * count) {
    String(decoding: UnsafeBufferPointer(start: $0, count: size * count), as: UTF8.self)
  }
  transfer.append(headerLine: line)
  return size * count
}
