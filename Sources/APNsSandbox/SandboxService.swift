import Events
import Foundation
import Infrastructure

/// The sandbox as a `Service`: the event loop runs on a thread of its own (poll(2) blocks,
/// and must not block the cooperative pool); cancellation (SIGTERM, SIGINT) wakes it through
/// a pipe, and `run` returns once it has closed every connection.
struct SandboxService: Service {
  let options: SandboxOptions
  let logger: Logger

  func run() async throws {
    let wake = try WakePipe()
    defer { wake.close() }
    let options = options
    let logger = logger
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (finished: CheckedContinuation<Void, any Error>) in
        // The loop and everything it owns are made on its thread and never leave it.
        let thread = Thread {
          do {
            let loop = try EventLoop(options: options, wake: wake, logger: logger)
            loop.run()
            finished.resume()
          } catch {
            finished.resume(throwing: error)
          }
        }
        thread.name = "APNsSandbox event loop"
        thread.start()
      }
    } onCancel: {
      wake.wake()
    }
  }
}
