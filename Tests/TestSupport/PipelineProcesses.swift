import Events
import Foundation
import Infrastructure

/// What every whole-pipeline harness shares (the end-to-end tests' `PipelineStack`, the
/// benchmarks' `PipelineRig`): one schema and subject prefix, the APNs sandbox over HTTP/2
/// and TLS recording each push to `record`, the camera simulator, and the environment that
/// points the workers at all of them.
public struct PipelineProcesses: Sendable {
  public let subjects: Subjects
  public let record: URL
  public let sandbox: APNsSandboxHarness
  public let simulator: WorkerProcess
  public let environment: [String: String]

  /// - Parameters:
  ///   - recordName: the start of the push record's file name.
  ///   - appURL: the public origin the pushes' image URLs name.
  ///   - settings: added to every process's environment.
  ///   - simulatorArguments: the camera simulator's, after its frames.
  public static func start(
    database: TestDatabase, recordName: String, appURL: String,
    settings: [String: String] = [:], simulatorArguments: [String]
  ) async throws -> PipelineProcesses {
    let prefix = uniqueSubjectPrefix()
    let record = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(recordName)-\(prefix).jsonl")
    var environment = try WorkerProcess.environment(database: database, subjectPrefix: prefix)
    environment.merge(settings) { $1 }
    let sandbox = try await APNsSandboxHarness.start(environment: environment, record: record)
    environment.merge(sandbox.workerEnvironment) { $1 }
    environment["MOWDECK_NOTIFICATIONS_APP_URL"] = appURL
    // Replicas of the serving process on one machine: each on a free port.
    environment["MOWDECK_NOTIFICATIONS_HTTP_LISTEN"] = "127.0.0.1:0"
    let simulator = try await WorkerProcess.cameraSimulator(
      arguments: ["--frames", TestServers.repositoryPath("deploy/frames")] + simulatorArguments,
      environment: environment)
    return PipelineProcesses(
      subjects: Subjects(prefix: prefix), record: record, sandbox: sandbox, simulator: simulator,
      environment: environment)
  }
}
