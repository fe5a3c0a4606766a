import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import ImageServeWorker

/// The ImageServeWorker executable as a deployment runs it.
@Suite(.serialized) struct ImageServeProcessTests {
  private func environment(_ db: TestDatabase, _ extra: [String: String] = [:]) throws -> [String:
    String]
  {
    var environment = try WorkerProcess.environment(
      database: db, subjectPrefix: uniqueSubjectPrefix())
    environment["MOWDECK_NOTIFICATIONS_HTTP_LISTEN"] = "127.0.0.1:0"
    environment["MOWDECK_NOTIFICATIONS_IMAGE_SECRET"] = ServeFixture.secret
    environment.merge(extra) { $1 }
    return environment
  }

  /// The port from the worker's `{"msg":"listening","port":...}` line.
  private func port(of worker: WorkerProcess) async throws -> Int {
    var port: Int?
    try await eventually(timeout: .seconds(10), "the worker to listen") {
      port =
        worker.log.split(separator: "\n").lazy
        .compactMap { JSON.object(from: Array($0.utf8)) }
        .first { $0["msg"]?.string == "listening" }?["port"]?.integer
      return port != nil
    }
    return try #require(port)
  }

  @Test func theWorkerServesAPhotoAndStopsCleanlyOnSIGTERM() async throws {
    let db = try await TestDatabase.make()
    let fixture = try await ServeFixture.make([:], database: db)
    try await fixture.seedDirectory()
    let alarm = try await fixture.seedAlarm(photo: .captured(TestPhotos.large))
    await fixture.service.stop()

    let worker = try WorkerProcess("ImageServeWorker", environment: try environment(db))
    defer { worker.kill() }
    let port = try await port(of: worker)
    let signer = ImageURLSigner(key: Array(ServeFixture.secret.utf8))
    let expiry = Int64(Date().timeIntervalSince1970) + 600
    let target = signer.url(origin: "", notificationID: alarm.notificationID, expiry: expiry)
    let photo = try await RawHTTP.get(port, target)
    #expect(photo.status == 200)
    #expect(photo.body == TestPhotos.large)
    #expect(
      try await RawHTTP.get(port, target.replacingOccurrences(of: "&s=", with: "&s=A")).status
        == 404)
    #expect(try await RawHTTP.get(port, "/healthz").status == 200)
    let monitoring = try #require(worker.monitoringPort)
    #expect(monitoring != port)
    try await eventually(timeout: .seconds(20), "the monitoring endpoint's 200 from /readyz") {
      try await RawHTTP.get(monitoring, "/readyz").status == 200
    }
    #expect(worker.stop() == 0)
    #expect(worker.log.contains(#""msg":"stopped""#))
    #expect(!worker.log.contains(#""level":"error""#), "\(worker.log)")
  }

  @Test func aBadListenSettingStopsTheWorkerWithOneLineNamingIt() async throws {
    let db = try await TestDatabase.make()
    let result = try await runCommand(
      "ImageServeWorker", [],
      environment: try environment(db, ["MOWDECK_NOTIFICATIONS_HTTP_LISTEN": "everywhere"]),
      timeout: .seconds(10))
    #expect(result.status == 2)
    #expect(result.output.split(separator: "\n").count == 1)
    #expect(result.output.contains("MOWDECK_NOTIFICATIONS_HTTP_LISTEN"))
  }

  @Test func aPortInUseStopsTheWorkerWithAClearError() async throws {
    let db = try await TestDatabase.make()
    let first = try WorkerProcess("ImageServeWorker", environment: try environment(db))
    defer { first.kill() }
    let port = try await port(of: first)
    let second = try await runCommand(
      "ImageServeWorker", [],
      environment: try environment(db, ["MOWDECK_NOTIFICATIONS_HTTP_LISTEN": "127.0.0.1:\(port)"]),
      timeout: .seconds(10))
    #expect(second.status == 1)
    #expect(second.output.contains("cannot listen on 127.0.0.1:\(port)"))
  }
}
