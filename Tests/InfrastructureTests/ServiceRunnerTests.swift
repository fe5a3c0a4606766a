import Foundation
import Infrastructure
import Synchronization
import TestSupport
import Testing

/// Signals are process-wide. Also, on Linux a SIGTERM dispatch source created after an
/// earlier one was cancelled never fires (libdispatch), so the SIGTERM case must be the
/// first `ServiceRunner.run` of the process: everything is in one test, in this order.
@Suite(.serialized) struct ServiceRunnerTests {
  struct Finishes: Service {
    func run() async throws {}
  }

  struct Fails: Service {
    struct Broken: Error {}
    func run() async throws { throw Broken() }
  }

  /// Meets what no restart cures (a schema newer than the build, say).
  struct Refuses: Service {
    struct Incurable: StartRefusal {
      var description: String { "cannot ever work" }
    }
    func run() async throws { throw Incurable() }
  }

  /// Works until asked to stop, then finishes its unit in hand (uncancelled) and returns;
  /// gives up after a while so that a missed signal fails the test.
  struct DrainsWhenAsked: Service {
    let started: AsyncStream<Void>.Continuation
    let finished: @Sendable (_ cancelled: Bool) -> Void
    func run() async throws {
      started.yield()
      let shutdown = try #require(GracefulShutdown.current)
      let asked = Task { await shutdown.wait() }
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await asked.value }
        group.addTask {
          try await Task.sleep(for: .seconds(10))
          throw TimedOut(what: "the graceful shutdown request")
        }
        try await group.next()
        group.cancelAll()
      }
      #expect(GracefulShutdown.isRequested)
      try? await Task.sleep(for: .milliseconds(200))  // the work in hand
      finished(Task.isCancelled)
    }
  }

  /// Ignores the request: only the grace period's cancellation ends it.
  struct IgnoresTheRequest: Service {
    func run() async throws {
      // Long enough that only the cancellation ends it, even on a starved thread pool.
      try await Task.sleep(for: .seconds(120))
      throw TimedOut(what: "the service to be cancelled")
    }
  }

  @Test(.timeLimit(.minutes(1)))
  func sigtermDrainsTheServiceAndExitStatusesFollowTheOutcome() async throws {
    let (started, continuation) = AsyncStream.makeStream(of: Void.self)
    let cancelled = Mutex<Bool?>(nil)
    let runner = Task {
      await ServiceRunner.run(
        DrainsWhenAsked(started: continuation) { value in cancelled.withLock { $0 = value } },
        logger: TestServers.logger, grace: .seconds(5))
    }
    var iterator = started.makeAsyncIterator()
    _ = await iterator.next()
    // libdispatch registers a signal source on its manager thread after `resume()`: a
    // signal sent before that meets SIG_IGN and is lost (once seen, the test then hung).
    try await Task.sleep(for: .milliseconds(500))
    kill(getpid(), SIGTERM)
    #expect(await runner.value == 0)
    // Its work in hand ran to the end, not cancelled.
    #expect(cancelled.withLock { $0 } == false)

    #expect(await ServiceRunner.run(Finishes(), logger: TestServers.logger) == 0)
    #expect(await ServiceRunner.run(Fails(), logger: TestServers.logger) == 1)
    #expect(await ServiceRunner.run(Refuses(), logger: TestServers.logger) == 2)
  }

  @Test func aServiceThatIgnoresTheRequestIsCancelledWhenTheGraceEnds() async throws {
    let (signals, send) = AsyncStream.makeStream(of: Int32.self)
    let started = ContinuousClock.now
    let runner = Task {
      await ServiceRunner.run(
        IgnoresTheRequest(), logger: TestServers.logger, grace: .milliseconds(300),
        signals: signals
      ) { _ in Issue.record("no second signal was sent") }
    }
    send.yield(SIGTERM)
    // 0, not the service's own error: it was cancelled, not left to run out.
    #expect(await runner.value == 0)
    #expect(ContinuousClock.now - started >= .milliseconds(300))
  }

  @Test func aSecondSignalStopsAtOnce() async throws {
    /// Busy until the test lets it go: it must not end by itself before the second signal
    /// is handled, however slowly a loaded machine runs the watcher.
    struct BusyUntilReleased: Service {
      let release: AsyncStream<Void>
      func run() async throws { for await _ in release { return } }
    }
    let (signals, send) = AsyncStream.makeStream(of: Int32.self)
    let (release, letGo) = AsyncStream.makeStream(of: Void.self)
    let second = Mutex<Int32?>(nil)
    let runner = Task {
      await ServiceRunner.run(
        BusyUntilReleased(release: release), logger: TestServers.logger, grace: .seconds(30),
        signals: signals
      ) { number in second.withLock { $0 = number } }
    }
    send.yield(SIGTERM)
    send.yield(SIGINT)
    try await eventually(timeout: .seconds(30), "the second signal's exit") {
      second.withLock { $0 } == SIGINT
    }
    letGo.yield()
    #expect(await runner.value == 0)
  }
}
