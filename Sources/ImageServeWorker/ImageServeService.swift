import Events
import Infrastructure

/// The serving stage: an HTTP server that is already listening when this is built (so a
/// test knows its port), and the schema migration, which waits for PostgreSQL in the
/// background: forged URLs, `/healthz` and `/metrics` are answered meanwhile.
struct ImageServeService: Service {
  let server: HTTPServer
  let migrate: @Sendable () async throws -> Void
  let logger: Logger

  var port: Int { server.port }

  func run() async throws {
    let migration = Task {
      do {
        try await migrate()
      } catch is CancellationError {
      } catch {
        logger.error("migration failed", ["error": String(describing: error)])
      }
    }
    defer { migration.cancel() }
    logger.info("image server running", ["port": port])
    await server.run()
  }
}
