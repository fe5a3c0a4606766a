import Events
import Infrastructure

/// Group commit for decisions (ADR 0039): while every pooled connection is deciding, alarms
/// that become ready wait, and the next transaction decides all of them that fit a
/// `DecisionBatch` (one alarm per mower and per event id). A batch that fails answers
/// `GroupCommitFailed`; its alarms are then decided alone by their lanes.
typealias DecisionBatcher = GroupCommit<DecisionBatch, FanoutOutcome>

extension GroupCommit where Group == DecisionBatch, Outcome == FanoutOutcome {
  convenience init(store: FanoutStore, metrics: Metrics, maxConcurrent: Int, maxBatch: Int) {
    self.init(
      maxConcurrent: maxConcurrent, maxGroup: maxBatch,
      alone: { try await store.decideAlone($0) },
      together: { try await store.decide($0) },
      observeSize: { size in
        metrics.observe(
          "mowdeck_fanout_batch_alarms", Double(size), buckets: Metrics.sizeBuckets)
      })
  }

  /// The alarm's outcome once its batch has committed.
  func decide(_ alarm: PendingAlarm) async throws -> FanoutOutcome {
    try await commit(alarm)
  }
}
