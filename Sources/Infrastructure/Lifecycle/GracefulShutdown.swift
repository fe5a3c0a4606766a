import Synchronization

/// The first phase of stopping, in the manner of swift-service-lifecycle: a service stops
/// taking new work when this is requested and finishes (or lets go of) what it has in
/// hand; `ServiceRunner` cancels it only when the deadline passes. Services reach the
/// runner's token through the task-local `current`, which every task they start inherits.
public final class GracefulShutdown: Sendable {
  @TaskLocal public static var current: GracefulShutdown?

  private let state = Mutex<State>(State())

  private struct State {
    var requested = false
    var nextWaiter = 0
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
  }

  public init() {}

  /// Whether the process was asked to stop: take no new work.
  public var isRequested: Bool { state.withLock { $0.requested } }

  /// Asks every service of the process to stop taking work; wakes those waiting for it.
  public func request() {
    let waiters = state.withLock { state in
      state.requested = true
      defer { state.waiters = [:] }
      return state.waiters.values
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once stopping was requested (at once if it was already), or the task is
  /// cancelled.
  public func wait() async {
    let id = state.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let now = state.withLock { state in
          if state.requested || Task.isCancelled { return true }
          state.waiters[id] = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }

  /// Sleeps for `duration`, or less when stopping is requested or the task cancelled;
  /// true when the whole time passed.
  public static func sleep(for duration: Duration) async -> Bool {
    guard let shutdown = current else {
      do {
        try await Task.sleep(for: duration)
        return true
      } catch {
        return false
      }
    }
    return await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        do {
          try await Task.sleep(for: duration)
          return true
        } catch {
          return false
        }
      }
      group.addTask {
        await shutdown.wait()
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first && !shutdown.isRequested
    }
  }

  /// Whether the current task's process is stopping: the test of every loop that takes work.
  public static var isRequested: Bool { current?.isRequested ?? false }

  /// Whether to stop taking work: stopping was requested, or the task was cancelled.
  public static var shouldStopTakingWork: Bool { Task.isCancelled || isRequested }
}
