import Events
import FoundationEssentials
import Infrastructure
import Synchronization

/// Group commit for decisions (ADR 0039). Each lane asks for its alarm's decision here; while
/// fewer than `maxConcurrent` transactions run, an alarm starts one at once, alone, as fast
/// as ever. When every connection is busy, alarms wait, and the next transaction to start
/// takes everything waiting (up to `maxBatch`, one alarm per mower), so a transaction's
/// round trips and commit are paid once for many alarms exactly when alarms arrive faster
/// than one transaction each can decide them.
///
/// A batch that fails is not retried as a batch: each of its alarms gets `BatchFailed` and
/// is retried alone by its lane, so one alarm that PostgreSQL refuses never holds up the
/// others, nor is it tried again in another batch.
final class DecisionBatcher: Sendable {
  /// The batch this alarm was in failed; it has not been decided.
  struct BatchFailed: Error, CustomStringConvertible {
    let underlying: any Error
    let batchSize: Int
    var description: String { "a batch of \(batchSize) alarms failed: \(underlying)" }
  }

  private struct Waiting {
    let alarm: PendingAlarm
    let continuation: CheckedContinuation<FanoutOutcome, any Error>
  }

  /// Alarms taken for one transaction, with whom to tell the outcome.
  private struct Taken {
    var decisions = DecisionBatch()
    var waiting: [Waiting] = []
  }

  private struct State {
    var waiting: [Waiting] = []
    var running = 0
  }

  private let state = Mutex(State())
  private let store: FanoutStore
  private let metrics: Metrics
  private let maxConcurrent: Int
  private let maxBatch: Int

  init(store: FanoutStore, metrics: Metrics, maxConcurrent: Int, maxBatch: Int) {
    self.store = store
    self.metrics = metrics
    self.maxConcurrent = max(1, maxConcurrent)
    self.maxBatch = max(1, maxBatch)
  }

  /// The alarm's outcome once its batch has committed; `BatchFailed` when a batch of
  /// several failed, the failure itself when the alarm was alone.
  func decide(_ alarm: PendingAlarm) async throws -> FanoutOutcome {
    try await withCheckedThrowingContinuation { continuation in
      let batch = state.withLock { state -> Taken? in
        state.waiting.append(Waiting(alarm: alarm, continuation: continuation))
        guard state.running < maxConcurrent else { return nil }
        state.running += 1
        return takeBatch(&state)
      }
      // Not a child of the lane: the transaction decides other lanes' alarms too, and each
      // of them waits for it, so it always runs to its end.
      if let batch { Task { await self.run(batch) } }
    }
  }

  /// Runs batches until nobody is waiting.
  private func run(_ first: Taken) async {
    var batch = first
    while true {
      await decide(batch)
      let next = state.withLock { state -> Taken? in
        guard !state.waiting.isEmpty else {
          state.running -= 1
          return nil
        }
        return takeBatch(&state)
      }
      guard let next else { return }
      batch = next
    }
  }

  private func decide(_ batch: Taken) async {
    let waiting = batch.waiting
    metrics.observe(
      "mowdeck_fanout_batch_alarms", Double(waiting.count), buckets: Metrics.sizeBuckets)
    do {
      let outcomes =
        waiting.count == 1
        ? [try await store.decideAlone(waiting[0].alarm)] : try await store.decide(batch.decisions)
      for (waiter, outcome) in zip(waiting, outcomes) {
        waiter.continuation.resume(returning: outcome)
      }
    } catch {
      let failure: any Error =
        waiting.count == 1 ? error : BatchFailed(underlying: error, batchSize: waiting.count)
      for waiter in waiting { waiter.continuation.resume(throwing: failure) }
    }
  }

  /// The waiting alarms a batch can hold, oldest first; an alarm whose mower or event id is
  /// already in the batch waits for the next one.
  private func takeBatch(_ state: inout State) -> Taken {
    var taken = Taken()
    var left: [Waiting] = []
    for waiter in state.waiting {
      if taken.waiting.count < maxBatch, taken.decisions.add(waiter.alarm) {
        taken.waiting.append(waiter)
      } else {
        left.append(waiter)
      }
    }
    state.waiting = left
    return taken
  }
}
