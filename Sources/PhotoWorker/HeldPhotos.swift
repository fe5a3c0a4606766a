import Events

/// The bytes of photos the cameras have answered that are not yet committed: beyond its
/// baseline, what a PhotoWorker's memory holds, shown as the gauge
/// `mowdeck_photo_held_bytes`. A photo stays held until its transaction commits, since a
/// retry after a lost connection needs the bytes; a gauge that keeps climbing means
/// PostgreSQL takes photos more slowly than the cameras answer (ADR 0017).
actor HeldPhotos {
  private let metrics: Metrics
  private var bytes = 0

  init(metrics: Metrics) {
    self.metrics = metrics
    metrics.describe(
      "mowdeck_photo_held_bytes", type: "gauge",
      help: "Bytes of photos answered by cameras and not yet stored.")
    metrics.set("mowdeck_photo_held_bytes", 0)
  }

  func hold(_ count: Int) { change(by: count) }

  func release(_ count: Int) { change(by: -count) }

  private func change(by count: Int) {
    guard count != 0 else { return }
    bytes += count
    metrics.set("mowdeck_photo_held_bytes", Double(bytes))
  }
}
