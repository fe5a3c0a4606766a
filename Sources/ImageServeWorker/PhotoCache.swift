import FoundationEssentials
import Synchronization

/// Recently served JPEGs by image id, up to `maxBytes`, least recently used out first.
///
/// Safe because a stored photo never changes: its row is inserted once and only ever
/// deleted. Every fetch still asks PostgreSQL whether the row is there and fresh, so a
/// pruned photo answers 410 at once; the cache only saves reading the bytes again (a
/// TOAST fetch of up to 512 KiB; they arrive in binary, `DatabasePool.firstBytes`).
final class PhotoCache: Sendable {
  private struct Entry {
    var jpeg: [UInt8]
    var used: UInt64
  }

  private struct State {
    var entries: [UUID: Entry] = [:]
    var bytes = 0
    var clock: UInt64 = 0
  }

  let maxBytes: Int
  private let state = Mutex(State())

  init(maxBytes: Int) { self.maxBytes = maxBytes }

  func jpeg(_ imageID: UUID) -> [UInt8]? {
    state.withLock { state in
      guard var entry = state.entries[imageID] else { return nil }
      state.clock += 1
      entry.used = state.clock
      state.entries[imageID] = entry
      return entry.jpeg
    }
  }

  func store(_ imageID: UUID, _ jpeg: [UInt8]) {
    guard jpeg.count <= maxBytes else { return }
    state.withLock { state in
      if let old = state.entries[imageID] { state.bytes -= old.jpeg.count }
      state.clock += 1
      state.entries[imageID] = Entry(jpeg: jpeg, used: state.clock)
      state.bytes += jpeg.count
      while state.bytes > maxBytes,
        let oldest = state.entries.min(by: { $0.value.used < $1.value.used })
      {
        state.bytes -= oldest.value.jpeg.count
        state.entries[oldest.key] = nil
      }
    }
  }

  /// Drops a photo PostgreSQL no longer has.
  func forget(_ imageID: UUID) {
    state.withLock { state in
      if let old = state.entries.removeValue(forKey: imageID) { state.bytes -= old.jpeg.count }
    }
  }

  var count: Int { state.withLock { $0.entries.count } }
}
