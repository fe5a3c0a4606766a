import Foundation
import Infrastructure
import TestSupport

/// The cluster scripts/check-cluster.sh started for this run (scripts/cluster.sh): three
/// nats-server nodes and a PostgreSQL primary with a synchronous standby, named to the tests
/// as their servers (`MOWDECK_TEST_DATABASE_URL`, `MOWDECK_TEST_NATS_URL`), and the faults
/// the cluster check inflicts on them.
struct LoopbackCluster: Sendable {
  let directory: String
  static let script = TestServers.repositoryPath("scripts/cluster.sh")

  /// Set by scripts/check-cluster.sh only: on the single servers of the ordinary run there
  /// is no cluster to fail over.
  static var current: LoopbackCluster? {
    ProcessInfo.processInfo.environment["MOWDECK_CLUSTER_DIR"].map {
      LoopbackCluster(directory: $0)
    }
  }

  static var isRunning: Bool { current != nil }

  /// SIGKILL to one nats-server node (`n1`, `n2`, `n3`).
  func killNATS(_ node: String) async throws {
    _ = try await runShellOffThePool("'\(Self.script)' kill-nats '\(directory)' \(node)")
  }

  /// The node again, on its port and store; returns once it answers its health check.
  func startNATS(_ node: String) async throws {
    _ = try await runShellOffThePool("'\(Self.script)' start-nats '\(directory)' \(node)")
  }

  /// The primary crashes and the standby is promoted.
  func failOverPostgres() async throws {
    _ = try await runShellOffThePool("'\(Self.script)' fail-over-postgres '\(directory)'")
  }
}
