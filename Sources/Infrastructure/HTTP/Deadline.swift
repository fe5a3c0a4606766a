import Synchronization

/// The work did not finish within its deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible, Sendable {
  public init() {}
  public var description: String { "deadline exceeded" }
}

/// Runs `work` and returns its result, or throws `DeadlineExceeded` after `timeout`.
///
/// For work that cannot be cancelled (a libpq connect blocks its thread for up to its
/// `connect_timeout`): the caller gets its answer on time and the work finishes in the
/// background. A task group would not do: it waits for every child before returning.
@discardableResult
public func withDeadline<T: Sendable>(
  _ timeout: Duration, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
  let race = DeadlineRace<T>()
  return try await withCheckedThrowingContinuation { continuation in
    race.start(continuation, timeout: timeout, work: work)
  }
}

/// The two tasks of `withDeadline` and the continuation the first of them resumes.
private final class DeadlineRace<T: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<T, any Error>?
    var worker: Task<Void, Never>?
    var timer: Task<Void, Never>?
  }
  private let state = Mutex(State())

  func start(
    _ continuation: CheckedContinuation<T, any Error>, timeout: Duration,
    work: @escaping @Sendable () async throws -> T
  ) {
    state.withLock { state in
      state.continuation = continuation
      state.timer = Task {
        do { try await Task.sleep(for: timeout) } catch { return }
        self.finish(.failure(DeadlineExceeded()))
      }
      state.worker = Task {
        do { self.finish(.success(try await work())) } catch { self.finish(.failure(error)) }
      }
    }
  }

  /// Resumes the caller once; cancels the other task (the timer, so that no sleeper
  /// outlives its request; or the work, which may or may not notice).
  private func finish(_ result: Result<T, any Error>) {
    let taken = state.withLock { state in
      defer {
        state.continuation = nil
        state.worker = nil
        state.timer = nil
      }
      return (state.continuation, state.worker, state.timer)
    }
    guard let continuation = taken.0 else { return }
    taken.1?.cancel()
    taken.2?.cancel()
    continuation.resume(with: result)
  }
}
