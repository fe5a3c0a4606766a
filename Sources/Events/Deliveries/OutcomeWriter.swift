import Infrastructure

/// A stage's store that ends several leased attempts in one transaction, each fenced by its
/// own lease token: the answer says, per item and in order, whether it was written.
public protocol OutcomeStore: Sendable {
  associatedtype Delivery: Sendable
  associatedtype Outcome: Sendable

  func finish(_ items: [(delivery: Delivery, outcome: Outcome)]) async throws -> [Bool]
}

/// Writes push outcomes in groups, for every push stage, by `GroupCommit` with one
/// transaction at a time: an outcome that arrives while no group is being written waits
/// `linger` (5 ms) for the others of its alarm, which are answered within a millisecond or
/// two of it, and they go together (ADR 0048); outcomes that arrive while a group is being
/// written wait for it and then go together. Nobody waits on an outcome: the push has left,
/// and its lease lasts seconds. Under load, hundreds of outcomes a second become a few
/// transactions (ADR 0014). After a group fails, each of
/// its outcomes is written again alone, so one that PostgreSQL refuses never fails (and
/// gets re-sent) the pushes that happened to share its transaction.
public struct OutcomeWriter<Store: OutcomeStore>: Sendable {
  private let store: Store
  private let groups: GroupCommit<Outcomes, Bool>

  /// The outcomes of one transaction; any fit together, each fenced by its own lease.
  struct Outcomes: CommitGroup {
    var items: [(delivery: Store.Delivery, outcome: Store.Outcome)] = []
    var count: Int { items.count }
    mutating func add(_ item: (delivery: Store.Delivery, outcome: Store.Outcome)) -> Bool {
      items.append(item)
      return true
    }
  }

  public init(store: Store, maxGroup: Int = 200, linger: Duration = .milliseconds(5)) {
    self.store = store
    groups = GroupCommit(
      maxConcurrent: 1, maxGroup: maxGroup, linger: linger,
      alone: { try await store.finish([$0])[0] },
      together: { try await store.finish($0.items) },
      observeSize: { _ in })
  }

  /// Records one attempt's outcome; false when the lease was lost meanwhile. Throws what
  /// its own transaction threw: the caller retries.
  public func write(_ delivery: Store.Delivery, _ outcome: Store.Outcome) async throws -> Bool {
    do {
      return try await groups.commit((delivery, outcome))
    } catch is GroupCommitFailed {
      return try await store.finish([(delivery, outcome)])[0]
    }
  }
}
