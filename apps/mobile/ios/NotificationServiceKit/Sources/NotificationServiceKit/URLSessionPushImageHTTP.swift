import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `PushImageHTTP` on URLSession, shared by the extension and `push-image-fetch`.
///
/// Each GET gets its own ephemeral session, so no cookie, cache or credential of one push
/// reaches another, and the delegate below serves exactly one task.
public struct URLSessionPushImageHTTP: PushImageHTTP {
  public init() {}

  public func get(_ url: URL, timeout: TimeInterval, maxBytes: Int) async -> PushImageHTTPAnswer {
    // The exact timeout is the Exchange's own timer. URLSession gets whole seconds, rounded up:
    // swift-corelibs-foundation truncates its timeout to whole seconds, so 0.9 s would be 0 s
    // there and fail the request at once.
    let sessionTimeout = max(1, timeout.rounded(.up))
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = sessionTimeout
    configuration.timeoutIntervalForResource = sessionTimeout
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    let exchange = Exchange(maxBytes: maxBytes)
    let session = URLSession(configuration: configuration, delegate: exchange, delegateQueue: nil)
    var request = URLRequest(
      url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: sessionTimeout)
    request.setValue("image/jpeg", forHTTPHeaderField: "Accept")
    let task = session.dataTask(with: request)
    let answer = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        exchange.start(task, timeout: timeout, continuation: continuation)
      }
    } onCancel: {
      exchange.cancel()
    }
    // A session keeps its delegate alive until it is invalidated.
    session.invalidateAndCancel()
    return answer
  }
}

/// The delegate of one data task. It refuses redirects, stops reading past the size cap, and
/// enforces the timeout itself: URLSession's own timeouts differ between platforms (on Apple's,
/// the request timeout only measures idle time).
private final class Exchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // @unchecked: URLSession calls in on its own queue and the caller on another; every mutable
  // field is touched under `lock` only.
  private let lock = NSLock()
  private let maxBytes: Int
  private var continuation: CheckedContinuation<PushImageHTTPAnswer, Never>?
  private var task: URLSessionDataTask?
  private var body = Data()
  private var exceeded = false
  private var timedOut = false
  private var cancelled = false
  private var finished = false

  init(maxBytes: Int) {
    self.maxBytes = maxBytes
  }

  func start(
    _ task: URLSessionDataTask, timeout: TimeInterval,
    continuation: CheckedContinuation<PushImageHTTPAnswer, Never>
  ) {
    let alreadyCancelled = lock.withLock {
      self.continuation = continuation
      self.task = task
      return cancelled
    }
    if alreadyCancelled {
      finish(.networkError("cancelled"))
      return
    }
    task.resume()
    // Weak, so a finished exchange and its body are freed at once, not when the timer fires.
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
      self?.expire()
    }
  }

  private func expire() {
    let task = lock.withLock {
      timedOut = !finished
      return self.task
    }
    task?.cancel()
  }

  func cancel() {
    let task = lock.withLock {
      cancelled = true
      return self.task
    }
    task?.cancel()
  }

  // A 3xx is handed back as the answer (and so stops the loop) instead of being followed.
  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let announced = dataTask.response?.expectedContentLength ?? -1
    let over = lock.withLock {
      body.append(data)
      exceeded = exceeded || body.count > maxBytes || announced > Int64(maxBytes)
      if exceeded { body = Data() }
      return exceeded
    }
    if over { dataTask.cancel() }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    let (body, exceeded, timedOut) = lock.withLock { (self.body, self.exceeded, self.timedOut) }
    let response = task.response as? HTTPURLResponse
    if let response, exceeded || error == nil {
      let reply = PushImageHTTPReply(
        status: response.statusCode,
        contentType: response.value(forHTTPHeaderField: "Content-Type"),
        body: body, bodyExceededLimit: exceeded)
      finish(.reply(reply))
    } else if timedOut || (error as? URLError)?.code == .timedOut {
      finish(.timedOut)
    } else if let error {
      finish(.networkError(error.localizedDescription))
    } else {
      finish(.networkError("not an HTTP response"))
    }
  }

  private func finish(_ answer: PushImageHTTPAnswer) {
    let continuation = lock.withLock {
      defer { self.continuation = nil }
      finished = true
      return self.continuation
    }
    continuation?.resume(returning: answer)
  }
}
