import Events
import Infrastructure

/// One reservation's outcome, waiting to be written.
struct PhotoCompletion: Sendable {
  let claim: PhotoClaim
  let result: PhotoResult
  /// From the claim to the camera's answer or failure.
  let latencySeconds: Double
}

/// Outcomes written in one transaction (`PhotoStore.complete(_:)`). Any outcomes fit
/// together: each ends its own reservation, fenced by its own lease.
struct PhotoCompletions: CommitGroup {
  private(set) var items: [PhotoCompletion] = []

  init() {}

  init(_ item: PhotoCompletion) {
    items = [item]
  }

  var count: Int { items.count }

  mutating func add(_ item: PhotoCompletion) -> Bool {
    items.append(item)
    return true
  }
}

/// Group commit for photo outcomes (ADR 0039, ADR 0045): while every pooled connection is
/// storing, outcomes that arrive wait, and the next transaction stores them all, with one
/// retention pass under the image table's lock instead of one each.
typealias PhotoCompleter = GroupCommit<PhotoCompletions, PhotoStore.Completion>

extension GroupCommit where Group == PhotoCompletions, Outcome == PhotoStore.Completion {
  convenience init(store: PhotoStore, metrics: Metrics, maxConcurrent: Int) {
    self.init(
      maxConcurrent: maxConcurrent, maxGroup: 64,
      alone: { try await store.complete(PhotoCompletions($0))[0] },
      together: { try await store.complete($0) },
      observeSize: { size in
        metrics.observe(
          "mowdeck_photo_store_group_photos", Double(size), buckets: Metrics.sizeBuckets)
      })
  }
}
