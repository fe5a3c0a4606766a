import Events
import Infrastructure

/// The serving stage: the public HTTP server and the monitoring endpoint, both already
/// listening when this is built (so a test knows their ports), and the schema migration,
/// which waits for PostgreSQL in the background: forged URLs and the monitoring routes are
/// answered meanwhile. A schema newer than this build ends the process (`StartRefusal`).
struct ImageServeService: Service {
  let server: HTTPServer
  let monitoring: HTTPServer
  let migrate: @Sendable () async throws -> Void
  let logger: Logger

  var port: Int { server.port }
  var monitoringPort: Int { monitoring.port }

  func run() async throws {
    logger.info("image server running", ["port": port, "monitoring_port": monitoringPort])
    try await withThrowingTaskGroup(of: Bool.self) { group in
      // True when the public server has stopped: the service is over.
      group.addTask {
        await server.run()
        return true
      }
      group.addTask {
        try await migrateInBackground()
        return false
      }
      // The monitoring routes answer while the server drains; cancelled after it.
      group.addTask {
        await GracefulShutdown.$current.withValue(nil) { await monitoring.run() }
        return false
      }
      while let serverStopped = try await group.next() {
        if serverStopped { break }
      }
      group.cancelAll()
    }
  }

  /// Stops both servers (the tests' servers, which never `run`).
  func stop() async {
    await server.stop()
    await monitoring.stop()
  }

  private func migrateInBackground() async throws {
    do {
      try await migrate()
    } catch is CancellationError {
    } catch let refusal as any StartRefusal {
      throw refusal
    } catch {
      logger.error("migration failed", ["error": String(describing: error)])
    }
  }
}
