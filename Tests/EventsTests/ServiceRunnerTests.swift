import Events
import Foundation
import TestSupport
import Testing

/// Signals are process-wide. Also, on Linux a SIGTERM dispatch source created after an
/// earlier one was cancelled never fires (libdispatch), so the SIGTERM case must be the
/// first `ServiceRunner.run` of the process: everything is in one test, in this order.
@Suite struct ServiceRunnerTests {
  struct Finishes: Service {
    func run() async throws {}
  }

  struct Fails: Service {
    struct Broken: Error {}
    func run() async throws { throw Broken() }
  }

  /// Runs until cancelled; gives up after a while so that a missed signal fails the test.
  struct RunsUntilCancelled: Service {
    let started: AsyncStream<Void>.Continuation
    func run() async throws {
      started.yield()
      try await Task.sleep(for: .seconds(10))
      throw TimedOut(what: "the service to be cancelled")
    }
  }

  @Test func sigtermStopsTheServiceCleanlyAndExitStatusesFollowTheOutcome() async throws {
    let (started, continuation) = AsyncStream.makeStream(of: Void.self)
    let runner = Task {
      await ServiceRunner.run(
        RunsUntilCancelled(started: continuation), logger: TestServers.logger)
    }
    var iterator = started.makeAsyncIterator()
    _ = await iterator.next()
    kill(getpid(), SIGTERM)
    #expect(await runner.value == 0)

    #expect(await ServiceRunner.run(Finishes(), logger: TestServers.logger) == 0)
    #expect(await ServiceRunner.run(Fails(), logger: TestServers.logger) == 1)
  }
}
