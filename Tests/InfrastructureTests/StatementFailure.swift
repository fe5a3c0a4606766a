import Infrastructure
import Testing

/// Runs `body`, which must fail with a statement error, and returns that error with its
/// SQLSTATE; records an issue and returns nil when it succeeds or fails otherwise.
func statementFailure(_ body: () async throws -> Void) async -> (
  state: String, error: DatabaseError
)? {
  do {
    try await body()
    Issue.record("the statement should fail")
  } catch let error as DatabaseError {
    if case .statementFailed(let state, _, _, _) = error { return (state, error) }
    Issue.record("unexpected \(error)")
  } catch {
    Issue.record("unexpected \(error)")
  }
  return nil
}
