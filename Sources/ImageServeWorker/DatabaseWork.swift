import Events
import Infrastructure

/// Runs a route's PostgreSQL work; a failure is a plain 503 (logged, never shown to the
/// client). A database that does not answer at all is the server's work deadline's
/// business (`HTTPServer.Options.workDeadline`): that request is answered 503 on time.
func databaseWork(
  _ route: String, logger: Logger, _ work: () async throws -> HTTPResponse
) async -> HTTPResponse {
  do {
    return try await work()
  } catch {
    logger.warning("request failed", ["route": route, "error": String(describing: error)])
    return .plain(503)
  }
}
