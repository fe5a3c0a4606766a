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
/// together, each ending its own reservation fenced by its own lease, up to `maxBytes` of
/// photos: a transaction of a few large inserts already pays its commit off, and a longer
/// one would only hold its connection (and the image table's lock) longer.
struct PhotoCompletions: CommitGroup {
  static let maxBytes = 4 << 20
  private(set) var items: [PhotoCompletion] = []
  private var bytes = 0

  init() {}

  init(_ item: PhotoCompletion) {
    _ = add(item)
  }

  var count: Int { items.count }

  mutating func add(_ item: PhotoCompletion) -> Bool {
    let size = if case .captured(let jpeg) = item.result { jpeg.count } else { 0 }
    guard items.isEmpty || bytes + size <= Self.maxBytes else { return false }
    items.append(item)
    bytes += size
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
