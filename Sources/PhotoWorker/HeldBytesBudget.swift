import Events
import Infrastructure
import Synchronization

/// The bytes of camera replies one PhotoWorker holds, and the budget that sheds photos when
/// the store cannot keep up (ADR 0019). Replies are admitted as they arrive, on nats.c's
/// delivery thread and before they are copied (ADR 0023); a photo gives its bytes back
/// after its commit, any other reply once it is judged.
///
/// Shedding is for a store that falls behind, so two kinds of reply never take a photo's
/// room (docs/interfaces.md#camera-request-and-replies):
/// - error replies (at most `smallReplyBytes`) are always admitted and kept outside the
///   ceiling: a burst of photos that fits the budget is not shed because error replies
///   arrived alongside, and a full budget never hides why a camera had no photo;
/// - a reply to a request taken over from a worker that died (`takenOver`) is admitted
///   beyond the budget: a takeover always answers in one burst, and those photos have
///   already waited a crash.
///
/// The gauge `mowdeck_photo_held_bytes` shows all bytes held, error replies included; it
/// is set under the budget's lock, so it never shows a stale level.
final class HeldBytesBudget: Sendable {
  /// The gauge of the bytes held: beyond its baseline, what the worker's memory holds. One
  /// that stays near the budget means PostgreSQL takes photos more slowly than cameras answer.
  static let gauge = "mowdeck_photo_held_bytes"

  /// Replies this small are error replies (`{"error":"asleep"}`), never photos.
  static let smallReplyBytes = 1024

  /// The most bytes of replies larger than `smallReplyBytes` admitted from fresh requests.
  let limit: Int
  private let metrics: Metrics
  private let level = Mutex(Level())

  private struct Level {
    /// Replies over `smallReplyBytes`: photos, and garbage until it is judged.
    var large = 0
    /// Error replies until they are judged.
    var small = 0
  }

  init(limit: Int, metrics: Metrics) {
    self.limit = limit
    self.metrics = metrics
    metrics.describe(
      Self.gauge, type: "gauge", help: "Bytes of photos answered by cameras and not yet stored.")
    metrics.set(Self.gauge, 0)
  }

  /// Whether a reply of `bytes` may be held; if so, it is counted until `release(bytes)`.
  /// A reply over the photo limit is refused whatever the room: it is never copied.
  func admit(_ bytes: Int, takenOver: Bool) -> Bool {
    if bytes > CameraReply.maximumBytes { return false }
    return level.withLock { level in
      if bytes <= Self.smallReplyBytes {
        level.small += bytes
      } else if takenOver || level.large + bytes <= limit {
        level.large += bytes
      } else {
        return false
      }
      publish(level)
      return true
    }
  }

  /// Gives back the bytes of a reply `admit` took.
  func release(_ bytes: Int) {
    guard bytes > 0 else { return }
    level.withLock { level in
      if bytes <= Self.smallReplyBytes {
        level.small -= bytes
      } else {
        level.large -= bytes
      }
      assert(level.small >= 0 && level.large >= 0, "released more than was admitted")
      publish(level)
    }
  }

  /// All bytes held now, error replies included.
  var held: Int { level.withLock { $0.large + $0.small } }

  private func publish(_ level: Level) {
    metrics.set(Self.gauge, Double(level.large + level.small))
  }
}
