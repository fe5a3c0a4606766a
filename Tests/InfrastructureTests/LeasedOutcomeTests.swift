import Infrastructure
import Synchronization
import Testing

/// How a delivery stage records an outcome after a failure, by the failure's class.
@Suite struct LeasedOutcomeTests {
  static func failure(_ state: String) -> DatabaseError {
    .statementFailed(
      sqlState: state, message: "m", statement: "UPDATE deliveries", constraint: nil)
  }

  func run(failing errors: [any Error]) async -> (calls: Int, succeeded: Bool, givenUp: Double) {
    let metrics = Metrics()
    let recorder = LeasedOutcome(
      what: "test", givenUpMetric: "given_up_total", logger: TestLogger.silent, metrics: metrics)
    let calls = Mutex(0)
    let succeeded = Mutex(false)
    await recorder.record(["id": 1]) {
      let call = calls.withLock { count in
        count += 1
        return count
      }
      if call <= errors.count { throw errors[call - 1] }
      succeeded.withLock { $0 = true }
    }
    return (
      calls.withLock { $0 }, succeeded.withLock { $0 }, metrics.counter("given_up_total")
    )
  }

  @Test func anOutageIsWaitedOut() async {
    let result = await run(failing: Array(repeating: Self.failure("08006"), count: 3))
    #expect(result.calls == 4 && result.succeeded && result.givenUp == 0)
  }

  @Test func aRefusedOutcomeIsGivenUpAtOnce() async {
    let result = await run(failing: [Self.failure("23514")])
    #expect(result.calls == 1 && !result.succeeded && result.givenUp == 1)
  }

  @Test func anUnclassedFailureIsGivenUpAfterFiveTries() async {
    let result = await run(failing: Array(repeating: Self.failure("XX000"), count: 10))
    #expect(result.calls == LeasedOutcome.unknownFailuresAllowed)
    #expect(!result.succeeded && result.givenUp == 1)
  }
}
