import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

/// The recorded fleet through the whole pipeline on a cluster (scripts/cluster.sh): two
/// replicas of every worker given every server, while the node leading the alarms stream
/// is killed and brought back, and then the PostgreSQL primary crashes and its synchronous
/// standby is promoted. Afterwards the invariants of every end-to-end run hold: nothing
/// lost, nothing decided twice. Run by scripts/check-cluster.sh, which prints the figures.
@Suite(.serialized, .enabled(if: LoopbackCluster.isRunning))
struct ClusterFailoverTests {
  let alarms = TestServers.fixture("fleet40.alarms.jsonl")
  let expected = TestServers.fixture("fleet40.expected.jsonl")

  @Test(.timeLimit(.minutes(10)))
  func fleet40SurvivesTheStreamLeadersLossAndAPostgreSQLFailover() async throws {
    let cluster = try #require(LoopbackCluster.current)
    let databaseURL = try TestServers.databaseURL()
    let natsURL = try TestServers.natsURL()
    let stack = try await PipelineStack(extraSettings: ["MOWDECK_JETSTREAM_REPLICAS": "3"])
    defer { stack.stopAll() }
    // 2,906 alarms at 80 a second: about 36 s, which outlasts both faults.
    let replay = try WorkerProcess(
      "mowdeck", arguments: ["replay", alarms, "--timeout", "180", "--rate", "80"],
      environment: stack.environment)
    let nats = try NATSClient.connect(
      url: natsURL, name: "cluster-check", logger: TestServers.logger)
    defer { nats.close() }
    let stream = StreamWatch(jetStream: JetStream(client: nats), name: stack.subjects.alarmsStream)

    // 1. The node that leads the alarms stream dies while alarms arrive.
    try await Task.sleep(for: .seconds(4))
    let before = try await stream.placementWithLeader(timeout: .seconds(30))
    #expect(before.replicas == 3, "the stream keeps a copy on every node")
    let leader = try #require(before.leader)
    #expect(replay.isRunning, "the leader dies during the replay")
    let killed = ContinuousClock.now
    try await cluster.killNATS(leader)
    let after = try await stream.placementWithLeader(timeout: .seconds(60), notOn: leader)
    let electionTook = ContinuousClock.now - killed
    try await Task.sleep(for: .seconds(3))
    try await cluster.startNATS(leader)
    let nodeBackAfter = ContinuousClock.now - killed

    // 2. Then the PostgreSQL primary crashes and the standby is promoted.
    try await Task.sleep(for: .seconds(3))
    #expect(replay.isRunning, "the primary crashes during the replay")
    let probe = DatabasePool(
      url: databaseURL, applicationName: "cluster-probe", maxConnections: 1)
    defer { Task { await probe.close() } }
    let crashed = ContinuousClock.now
    try await cluster.failOverPostgres()
    // A transaction id is only handed out by a server that takes writes.
    try await eventually(timeout: .seconds(60), "a primary to take writes again") {
      (try? await probe.query("SELECT txid_current() AS id")) != nil
    }
    let writesBackAfter = ContinuousClock.now - crashed

    let status = try await replay.wait(timeout: .seconds(240))
    #expect(status == 0, "\(replay.log.suffix(1500))")
    let summary =
      replay.log.split(separator: "\n").last { $0.hasPrefix("replayed") } ?? "no summary"
    print(
      "cluster: stream leader \(leader) killed, \(after.leader ?? "?") leads after "
        + "\(electionTook.seconds) s, \(leader) back after \(nodeBackAfter.seconds) s; "
        + "PostgreSQL primary crashed, the promoted standby takes writes after "
        + "\(writesBackAfter.seconds) s; \(summary)")
    try await Invariants(stack: stack).check(alarms: alarms, expected: expected)
    // Nothing is left in the stream either: every alarm acknowledged after its decision.
    try await eventually(timeout: .seconds(30), "the fan-out's consumer to be drained") {
      let backlog = try? await JetStream(client: nats).consumerBacklog(
        stream: stack.subjects.alarmsStream, durable: stack.subjects.fanoutConsumer)
      return backlog?.pending == 0 && backlog?.ackPending == 0
    }
  }
}

/// The stream's copies as an installation that grew from one nats-server to a cluster
/// meets them: the fan-out (which adjusts) scales an existing stream to the setting, and a
/// publisher with another setting (which only creates) leaves it.
@Suite(.enabled(if: LoopbackCluster.isRunning))
struct StreamReplicasTests {
  @Test func anExistingSingleCopyStreamIsScaledToThreeAndStaysThere() async throws {
    let nats = try NATSClient.connect(
      url: try TestServers.natsURL(), name: "replicas-check", logger: TestServers.logger)
    defer { nats.close() }
    let jetStream = JetStream(client: nats)
    let prefix = "r\(UUID().uuidString.prefix(8).lowercased())"
    let name = "T_" + prefix.uppercased()
    try await jetStream.ensureStream(name: name, subjects: [prefix + ".>"], replicas: 1)
    #expect(try await jetStream.streamPlacement(name: name)?.replicas == 1)
    try await jetStream.ensureStream(
      name: name, subjects: [prefix + ".>"], replicas: 3, adjustReplicas: true)
    #expect(try await jetStream.streamPlacement(name: name)?.replicas == 3)
    try await jetStream.ensureStream(name: name, subjects: [prefix + ".>"], replicas: 1)
    #expect(try await jetStream.streamPlacement(name: name)?.replicas == 3)
  }
}

/// Reads where the alarms stream lives, through whichever node answers.
private struct StreamWatch {
  let jetStream: JetStream
  let name: String

  /// The stream's placement once it has a leader (other than `notOn`), polled every 100 ms:
  /// an election is under way while nobody leads, and the API may time out meanwhile.
  func placementWithLeader(timeout: Duration, notOn old: String? = nil) async throws
    -> JetStream.StreamPlacement
  {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if let placement = try? await jetStream.streamPlacement(name: name),
        let leader = placement.leader, leader != old
      {
        return placement
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw ClusterCheckError.noLeader(stream: name, within: timeout)
  }
}

enum ClusterCheckError: Error, CustomStringConvertible {
  case noLeader(stream: String, within: Duration)

  var description: String {
    switch self {
    case .noLeader(let stream, let within): "stream \(stream) had no new leader within \(within)"
    }
  }
}

extension Duration {
  /// Seconds with two decimals, for the check's report.
  fileprivate var seconds: String {
    String(
      format: "%.2f", Double(components.seconds) + Double(components.attoseconds) / 1e18)
  }
}
