import Foundation
import NotificationServiceKit

/// Virtual time: it moves only when the fake server answers or the loop sleeps, so a 14 s
/// exchange runs in microseconds and every run is identical.
final class VirtualClock: PushImageClock, @unchecked Sendable {
  // @unchecked: `time` is touched under `lock` only.
  private let lock = NSLock()
  private var time: TimeInterval = 0

  func now() -> TimeInterval { lock.withLock { time } }

  func sleep(until deadline: TimeInterval) async throws {
    try Task.checkCancellation()
    advance(to: deadline)
  }

  func advance(to moment: TimeInterval) {
    lock.withLock { time = max(time, moment) }
  }
}

/// What the fake server does for one request: answer after `latency` seconds, or hang forever.
enum FakeResponse: Sendable {
  case answer(PushImageHTTPAnswer, latency: TimeInterval)
  case hang

  static func status(_ status: Int, latency: TimeInterval = 0.05) -> FakeResponse {
    .reply(status, nil, Data(), latency: latency)
  }

  static func reply(
    _ status: Int, _ contentType: String?, _ body: Data, exceeded: Bool = false,
    latency: TimeInterval = 0.05
  ) -> FakeResponse {
    let reply = PushImageHTTPReply(
      status: status, contentType: contentType, body: body, bodyExceededLimit: exceeded)
    return .answer(.reply(reply), latency: latency)
  }

  static func jpeg(_ body: Data = sampleJPEG, latency: TimeInterval = 0.05) -> FakeResponse {
    .reply(200, "image/jpeg", body, latency: latency)
  }
}

/// A server scripted by a function of the moment a request starts. It advances the virtual clock
/// by the latency, or by the timeout when the answer would come later, as a real transport that
/// gives up after `timeout` would.
final class FakeServer: PushImageHTTP, @unchecked Sendable {
  struct Request: Equatable {
    var url: URL
    var start: TimeInterval
    var timeout: TimeInterval
    var end: TimeInterval
  }

  // @unchecked: `log` is touched under `lock` only; the rest is immutable.
  private let lock = NSLock()
  private var log: [Request] = []
  private let clock: VirtualClock
  private let script: @Sendable (_ start: TimeInterval, _ attempt: Int) -> FakeResponse

  init(
    clock: VirtualClock,
    script: @escaping @Sendable (_ start: TimeInterval, _ attempt: Int) -> FakeResponse
  ) {
    self.clock = clock
    self.script = script
  }

  var requests: [Request] { lock.withLock { log } }

  func get(_ url: URL, timeout: TimeInterval, maxBytes: Int) async -> PushImageHTTPAnswer {
    let start = clock.now()
    let attempt = lock.withLock { log.count } + 1
    let answer: PushImageHTTPAnswer
    let took: TimeInterval
    switch script(start, attempt) {
    case .answer(let value, let latency) where latency <= timeout:
      (answer, took) = (value, latency)
    case .answer, .hang:
      (answer, took) = (.timedOut, timeout)
    }
    clock.advance(to: start + took)
    lock.withLock {
      log.append(Request(url: url, start: start, timeout: timeout, end: start + took))
    }
    return answer
  }
}

/// A made-up but well-formed JPEG frame: SOI, an APP0 marker, some bytes, EOI.
let sampleJPEG = Data([
  0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0xFF, 0xD9,
])

let validURL =
  "https://mowdeck.example/api/v1/notifications/push-images/"
  + "3f2b8c1e-9d4a-4b7e-8f21-6c5d0e9a7b13?e=1767225600&s=Zm9vYmFy-_0"

/// A fresh empty directory for the files a test writes.
func temporaryDirectory() throws -> URL {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("push-image-tests-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}

/// Fetches `url` from a fake server following `script`, on virtual time.
func run(
  _ url: String = validURL, plan: PushImage.Plan = .standard, maxBytes: Int = 1024,
  directory: URL? = nil,
  script: @escaping @Sendable (_ start: TimeInterval, _ attempt: Int) -> FakeResponse
) async throws -> (PushImage.Outcome, [FakeServer.Request]) {
  let clock = VirtualClock()
  let server = FakeServer(clock: clock, script: script)
  let fetcher = PushImage(
    http: server, clock: clock, directory: try directory ?? temporaryDirectory(), plan: plan,
    maxBytes: maxBytes)
  let outcome = await fetcher.fetch(imageURL: url)
  return (outcome, server.requests)
}
