import Infrastructure
import Synchronization
import Testing

/// Group commit (ADR 0039) and its linger (ADR 0048), with a store that only records the
/// transactions it was asked for.
@Suite struct GroupCommitTests {
  struct Numbers: CommitGroup {
    var items: [Int] = []
    var count: Int { items.count }
    mutating func add(_ item: Int) -> Bool {
      items.append(item)
      return true
    }
  }

  /// Each transaction's items, in the order the transactions started.
  final class Transactions: Sendable {
    private let groups = Mutex<[[Int]]>([])
    var all: [[Int]] { groups.withLock { $0 } }
    func record(_ items: [Int]) { groups.withLock { $0.append(items) } }
  }

  static func groupCommit(
    _ transactions: Transactions, maxConcurrent: Int = 1, linger: Duration = .zero,
    holdingEach hold: Duration = .zero
  ) -> GroupCommit<Numbers, Int> {
    GroupCommit(
      maxConcurrent: maxConcurrent, maxGroup: 100, linger: linger,
      alone: { item in
        transactions.record([item])
        try await Task.sleep(for: hold)
        return item * 10
      },
      together: { group in
        transactions.record(group.items)
        try await Task.sleep(for: hold)
        return group.items.map { $0 * 10 }
      },
      observeSize: { _ in })
  }

  /// Commits `items` at once, each from its own task; the outcomes by item.
  static func commitAtOnce(_ items: [Int], _ groups: GroupCommit<Numbers, Int>) async throws
    -> [Int: Int]
  {
    try await withThrowingTaskGroup(of: (Int, Int).self) { tasks in
      for item in items { tasks.addTask { (item, try await groups.commit(item)) } }
      var outcomes: [Int: Int] = [:]
      for try await (item, outcome) in tasks { outcomes[item] = outcome }
      return outcomes
    }
  }

  @Test func withoutLingerALoneItemGoesAloneAtOnce() async throws {
    let transactions = Transactions()
    let groups = Self.groupCommit(transactions)
    let started = ContinuousClock.now
    #expect(try await groups.commit(7) == 70)
    #expect(ContinuousClock.now - started < .milliseconds(50))
    #expect(transactions.all == [[7]])
  }

  /// Items that arrive while the first one lingers share its transaction; nobody's outcome
  /// comes before the linger has passed.
  @Test func itemsArrivingWithinTheLingerShareOneTransaction() async throws {
    let transactions = Transactions()
    let groups = Self.groupCommit(transactions, linger: .milliseconds(200))
    let started = ContinuousClock.now
    let outcomes = try await Self.commitAtOnce([1, 2, 3], groups)
    #expect(ContinuousClock.now - started >= .milliseconds(200))
    #expect(outcomes == [1: 10, 2: 20, 3: 30])
    #expect(transactions.all.count == 1)
    #expect(transactions.all.first?.sorted() == [1, 2, 3])
  }

  /// Two lingering transactions may start at once when two connections are free; the one
  /// whose linger ends second finds everything taken by the first, and gives its connection
  /// back instead of writing an empty group.
  @Test func aLingerThatFindsNothingLeftWritesNothing() async throws {
    let transactions = Transactions()
    let groups = Self.groupCommit(transactions, maxConcurrent: 2, linger: .milliseconds(100))
    let outcomes = try await Self.commitAtOnce([1, 2], groups)
    #expect(outcomes == [1: 10, 2: 20])
    #expect(transactions.all.map { $0.sorted() } == [[1, 2]])
    // Both connections are free again: the next item lingers and goes alone.
    #expect(try await groups.commit(3) == 30)
    #expect(transactions.all.count == 2)
  }

  /// While a transaction runs, new items wait and go together next, linger or not.
  @Test func itemsArrivingDuringATransactionGoTogetherNext() async throws {
    let transactions = Transactions()
    let groups = Self.groupCommit(transactions, holdingEach: .milliseconds(300))
    async let first = groups.commit(1)
    try await Task.sleep(for: .milliseconds(100))
    let rest = try await Self.commitAtOnce([2, 3, 4], groups)
    #expect(try await first == 10)
    #expect(rest == [2: 20, 3: 30, 4: 40])
    #expect(transactions.all.count == 2)
    #expect(transactions.all.last?.sorted() == [2, 3, 4])
  }
}
