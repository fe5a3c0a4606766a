/// A stage's store that ends several leased attempts in one transaction, each fenced by its
/// own lease token: the answer says, per item and in order, whether it was written.
public protocol OutcomeStore: Sendable {
  associatedtype Delivery: Sendable
  associatedtype Outcome: Sendable

  func finish(_ items: [(delivery: Delivery, outcome: Outcome)]) async throws -> [Bool]
}

/// Writes push outcomes in groups (group commit), for every push stage: an outcome that
/// arrives while no group is being written goes at once, alone; outcomes that arrive while
/// one is being written wait for it and then go together. No timer, so a lone push is
/// recorded as soon as it ends; under load, hundreds of outcomes a second become a few
/// transactions (ADR 0014).
public actor OutcomeWriter<Store: OutcomeStore> {
  private struct Pending {
    let delivery: Store.Delivery
    let outcome: Store.Outcome
    let answer: CheckedContinuation<Result<Bool, any Error>, Never>
  }

  private let store: Store
  private let maxGroup: Int
  private var pending: [Pending] = []
  private var writing = false

  public init(store: Store, maxGroup: Int = 200) {
    self.store = store
    self.maxGroup = max(1, maxGroup)
  }

  /// Records one attempt's outcome; false when the lease was lost meanwhile. Throws what
  /// the group's transaction threw: the caller retries, alone or in a later group.
  public func write(_ delivery: Store.Delivery, _ outcome: Store.Outcome) async throws -> Bool {
    let result = await withCheckedContinuation { answer in
      pending.append(Pending(delivery: delivery, outcome: outcome, answer: answer))
      if !writing {
        writing = true
        Task { await self.drain() }
      }
    }
    return try result.get()
  }

  private func drain() async {
    while !pending.isEmpty {
      let group = Array(pending.prefix(maxGroup))
      pending.removeFirst(group.count)
      let written: Result<[Bool], any Error>
      do {
        written = .success(try await store.finish(group.map { ($0.delivery, $0.outcome) }))
      } catch {
        written = .failure(error)
      }
      for (index, item) in group.enumerated() {
        item.answer.resume(returning: written.map { $0[index] })
      }
    }
    writing = false
  }
}
