import Foundation
import TestSupport

/// The fan-out replicas' `mowdeck_fanout_handoffs_total`, summed by answer, read from their
/// monitoring endpoints: how the decisions' APNs deliveries reached the APNs stage.
struct FanoutHandoffs {
  var taken = 0.0
  /// Offers the APNs stage did not take (declined, timeout, no_worker, failed): each cost a
  /// release and a claim besides the offer.
  var refused = 0.0
  /// Decisions that offered nothing while the handoffs were paused (ADR 0046).
  var paused = 0.0

  static func read(_ processes: [WorkerProcess]) async -> FanoutHandoffs {
    var counts = FanoutHandoffs()
    for process in processes where process.name == "FanoutWorker" {
      guard let port = process.monitoringPort,
        let text = try? await runShellOffThePool(
          "curl -s -m 3 http://127.0.0.1:\(port)/metrics")
      else { continue }
      for line in text.split(separator: "\n")
      where line.hasPrefix("mowdeck_fanout_handoffs_total{") {
        guard let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
        if line.contains("answer=\"taken\"") {
          counts.taken += value
        } else if line.contains("answer=\"paused\"") {
          counts.paused += value
        } else {
          counts.refused += value
        }
      }
    }
    return counts
  }

  static func - (end: FanoutHandoffs, start: FanoutHandoffs) -> FanoutHandoffs {
    FanoutHandoffs(
      taken: end.taken - start.taken, refused: end.refused - start.refused,
      paused: end.paused - start.paused)
  }

  /// "taken/refused/paused".
  var cell: String { String(format: "%.0f/%.0f/%.0f", taken, refused, paused) }
}
