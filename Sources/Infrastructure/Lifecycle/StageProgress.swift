import Synchronization

/// Whether a stage is getting its work done: it says how much work waits and how old the
/// oldest is, and notes each unit it finishes. `/healthz` turns unhealthy when work has
/// waited longer than `stallLimit` with nothing finished, so that an orchestrator restarts
/// a worker that is alive but stuck; a stage with nothing to do is never stalled.
public final class StageProgress: Sendable {
  public let stage: String
  public let stallLimit: Duration
  public let metrics: Metrics
  private let state: Mutex<State>

  private struct State {
    var waiting = 0
    var waitingSince: ContinuousClock.Instant?
    var lastProgress = ContinuousClock.now
  }

  /// Gauges `mowdeck_<stage>_waiting`, `mowdeck_<stage>_oldest_waiting_seconds` and
  /// `mowdeck_<stage>_stalled` (what `/healthz` says, for Prometheus, which does not read it).
  public init(stage: String, stallLimit: Duration, metrics: Metrics) {
    self.stage = stage
    self.stallLimit = stallLimit
    self.metrics = metrics
    self.state = Mutex(State())
    metrics.describe(waitingGauge, type: "gauge", help: "Units of work waiting for this stage.")
    metrics.describe(
      oldestGauge, type: "gauge", help: "Age in seconds of the oldest unit of work waiting.")
    metrics.describe(
      stalledGauge, type: "gauge",
      help: "1 while work has waited past the stall limit with nothing finished (/healthz 503).")
    metrics.set(waitingGauge, 0)
    metrics.set(oldestGauge, 0)
    metrics.set(stalledGauge, 0)
  }

  private var waitingGauge: String { "mowdeck_\(stage)_waiting" }
  private var oldestGauge: String { "mowdeck_\(stage)_oldest_waiting_seconds" }
  private var stalledGauge: String { "mowdeck_\(stage)_stalled" }

  /// One unit of work finished (committed, acknowledged, sent or given up for good).
  public func progressed() {
    state.withLock { $0.lastProgress = .now }
  }

  /// What waits now: `count` units, the oldest `oldestAgeSeconds` old.
  public func waiting(_ count: Int, oldestAgeSeconds: Double) {
    state.withLock { state in
      if count > 0, state.waiting == 0 { state.waitingSince = .now }
      if count == 0 { state.waitingSince = nil }
      state.waiting = count
    }
    metrics.set(waitingGauge, Double(count))
    metrics.set(oldestGauge, count > 0 ? max(0, oldestAgeSeconds) : 0)
    // Read at each measurement (every 2 s): the stall is judged as `/healthz` judges it.
    metrics.set(stalledGauge, stalled() == nil ? 0 : 1)
  }

  /// What a stage reads of its waiting work: the units it could take or holds now, and the
  /// age of the oldest unit the whole stage has waiting (what an operator's gauge shows).
  public struct Reading: Sendable {
    public let count: Int
    public let oldestAgeSeconds: Double

    public init(count: Int, oldestAgeSeconds: Double) {
      self.count = count
      self.oldestAgeSeconds = oldestAgeSeconds
    }
  }

  /// Reads what waits every `interval` until the task is cancelled. A failed reading
  /// (PostgreSQL away) keeps the last one: `/healthz` reports the database on its own.
  public func keepMeasuring(
    every interval: Duration, _ measure: @escaping @Sendable () async throws -> Reading
  ) async {
    while !Task.isCancelled {
      if let reading = try? await measure() {
        waiting(reading.count, oldestAgeSeconds: reading.oldestAgeSeconds)
      }
      do { try await Task.sleep(for: interval) } catch { return }
    }
  }

  /// How long work has waited with nothing finished; nil while the stage keeps up.
  public func stalled(now: ContinuousClock.Instant = .now) -> Duration? {
    state.withLock { state in
      guard state.waiting > 0, let since = state.waitingSince else { return nil }
      let idle = now - max(since, state.lastProgress)
      return idle > stallLimit ? idle : nil
    }
  }
}
