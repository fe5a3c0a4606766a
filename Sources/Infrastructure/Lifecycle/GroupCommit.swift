import Synchronization

/// What a group commit gathers for one transaction: the items it holds, and which item must
/// wait for a later group (the fan-out's one alarm per mower, say).
public protocol CommitGroup: Sendable {
  associatedtype Item: Sendable
  init()
  var count: Int { get }
  /// Adds `item`, or answers false when it must wait for a later group.
  mutating func add(_ item: Item) -> Bool
}

/// A group of several items whose transaction failed: none of it was written. Each item is
/// then committed again alone by its caller, so one item that PostgreSQL refuses never holds
/// up the others, nor is it tried again in another group.
public struct GroupCommitFailed: Error, CustomStringConvertible {
  public let underlying: any Error
  public let groupSize: Int
  public var description: String { "a group of \(groupSize) failed: \(underlying)" }
}

/// A group's transaction answered a different number of outcomes than it had items.
public struct GroupCommitMiscount: Error, CustomStringConvertible {
  public let items: Int
  public let outcomes: Int
  public var description: String { "\(outcomes) outcomes for \(items) items" }
}

/// Group commit (ADR 0039). While fewer than `maxConcurrent` transactions run, an item
/// starts one at once, alone, as fast as ever. When every connection is busy, items wait,
/// and the next transaction to start takes everything waiting that fits (up to `maxGroup`),
/// so its round trips, locks and commit are paid once for many items exactly when items
/// arrive faster than one transaction each can write them.
public final class GroupCommit<Group: CommitGroup, Outcome: Sendable>: Sendable {
  private struct Waiting {
    let item: Group.Item
    let continuation: CheckedContinuation<Outcome, any Error>
  }

  /// Items taken for one transaction, with whom to tell the outcome.
  private struct Taken {
    var group = Group()
    var waiting: [Waiting] = []
  }

  /// What an arriving item does: wait for a running transaction to take it, start one
  /// with what is waiting now, or hold a connection and start one after the linger.
  private enum Start {
    case waitForRunning
    case now(Taken)
    case afterLinger
  }

  private struct State {
    var waiting: [Waiting] = []
    var running = 0
  }

  private let state = Mutex(State())
  private let maxConcurrent: Int
  private let maxGroup: Int
  private let linger: Duration
  private let alone: @Sendable (Group.Item) async throws -> Outcome
  private let together: @Sendable (Group) async throws -> [Outcome]
  private let observeSize: @Sendable (Int) -> Void

  /// - Parameters:
  ///   - alone: commits one item in a transaction of its own.
  ///   - together: commits a group of several in one transaction, outcomes in its order.
  ///   - observeSize: told each transaction's number of items.
  ///   - linger: how long an item that finds a connection free waits for others before its
  ///     transaction starts. Zero (the default): at once. Only for writes nobody waits on
  ///     (the push outcomes, ADR 0048); never for a decision, whose latency is the push's.
  public init(
    maxConcurrent: Int, maxGroup: Int, linger: Duration = .zero,
    alone: @escaping @Sendable (Group.Item) async throws -> Outcome,
    together: @escaping @Sendable (Group) async throws -> [Outcome],
    observeSize: @escaping @Sendable (Int) -> Void
  ) {
    self.maxConcurrent = max(1, maxConcurrent)
    self.maxGroup = max(1, maxGroup)
    self.linger = max(.zero, linger)
    self.alone = alone
    self.together = together
    self.observeSize = observeSize
  }

  /// The item's outcome once its transaction has committed; `GroupCommitFailed` when a
  /// group of several failed, the failure itself when the item was alone.
  public func commit(_ item: Group.Item) async throws -> Outcome {
    try await withCheckedThrowingContinuation { continuation in
      let start = state.withLock { state -> Start in
        state.waiting.append(Waiting(item: item, continuation: continuation))
        guard state.running < maxConcurrent else { return .waitForRunning }
        state.running += 1
        // Lingering: the connection is held for a group taken when the linger ends.
        return linger > .zero ? .afterLinger : .now(take(&state))
      }
      // Not a child of the caller: the transaction holds other callers' items too, and each
      // of them waits for it, so it always runs to its end.
      switch start {
      case .waitForRunning: break
      case .now(let taken): Task { await self.run(taken) }
      case .afterLinger: Task { await self.runAfterLinger() }
      }
    }
  }

  /// Waits `linger`, then takes what is waiting; nothing when another transaction, ending
  /// meanwhile, took it all.
  private func runAfterLinger() async {
    try? await Task.sleep(for: linger)
    let taken = state.withLock { state -> Taken? in
      guard !state.waiting.isEmpty else {
        state.running -= 1
        return nil
      }
      return take(&state)
    }
    if let taken { await run(taken) }
  }

  /// Runs transactions until nobody is waiting.
  private func run(_ first: Taken) async {
    var taken = first
    while true {
      await write(taken)
      let next = state.withLock { state -> Taken? in
        guard !state.waiting.isEmpty else {
          state.running -= 1
          return nil
        }
        return take(&state)
      }
      guard let next else { return }
      taken = next
    }
  }

  private func write(_ taken: Taken) async {
    let waiting = taken.waiting
    observeSize(waiting.count)
    do {
      let outcomes =
        waiting.count == 1 ? [try await alone(waiting[0].item)] : try await together(taken.group)
      // A caller left without its outcome would wait for ever.
      guard outcomes.count == waiting.count else {
        throw GroupCommitMiscount(items: waiting.count, outcomes: outcomes.count)
      }
      for (waiter, outcome) in zip(waiting, outcomes) {
        waiter.continuation.resume(returning: outcome)
      }
    } catch {
      let failure: any Error =
        waiting.count == 1 ? error : GroupCommitFailed(underlying: error, groupSize: waiting.count)
      for waiter in waiting { waiter.continuation.resume(throwing: failure) }
    }
  }

  /// The waiting items a group can hold, oldest first; an item that does not fit waits for
  /// the next one.
  private func take(_ state: inout State) -> Taken {
    var taken = Taken()
    var left: [Waiting] = []
    for waiter in state.waiting {
      if taken.waiting.count < maxGroup, taken.group.add(waiter.item) {
        taken.waiting.append(waiter)
      } else {
        left.append(waiter)
      }
    }
    state.waiting = left
    return taken
  }
}
