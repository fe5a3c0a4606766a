import Infrastructure
import Synchronization
import Testing

@Suite struct ThrottledWarningTests {
  /// A monotonic clock the test moves.
  final class Hands: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    func read() -> ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
  }

  @Test func aFloodIsCutAtTheLimitAndItsCountLoggedInTheNextMinute() {
    let hands = Hands()
    let warning = ThrottledWarning(
      "photo shed", logger: TestLogger.silent, limit: 3, now: { hands.read() })
    let first = (0..<5).map { _ in warning.log() }
    #expect(
      first == Array(repeating: .logged(suppressedBefore: 0), count: 3) + [
        .suppressed, .suppressed,
      ])

    hands.advance(.seconds(59))
    #expect(warning.log() == .suppressed)
    hands.advance(.seconds(1))
    #expect(warning.log() == .logged(suppressedBefore: 3))
    #expect(warning.log() == .logged(suppressedBefore: 0))
  }
}

enum TestLogger {
  /// Warnings under test go nowhere: only errors would be written.
  static let silent = Logger(component: "test", minimumLevel: .error)
}
