import Events
import Infrastructure
import Testing

@testable import PhotoWorker

/// How storing a capture's outcome goes on after a failure, by its class (issue 20).
@Suite struct StoreAttemptsTests {
  func refused(_ state: String, constraint: String? = nil) -> DatabaseError {
    .statementFailed(
      sqlState: state, message: "value \"x\\u0000y\" refused", statement: "INSERT INTO x",
      constraint: constraint)
  }

  @Test func anOutageIsRetriedForAsLongAsItLasts() {
    var attempts = StoreAttempts()
    for _ in 0..<1000 { #expect(attempts.next(after: .outage) == .retry) }
    #expect(attempts.next(after: .content) == .storeRejection)
    // PostgreSQL may go away while the marker is stored too: still only a delay.
    for _ in 0..<1000 { #expect(attempts.next(after: .outage) == .retry) }
  }

  @Test func aContentErrorEndsTheItemAtOnceAndThenGivesUp() {
    var attempts = StoreAttempts()
    #expect(attempts.next(after: .content) == .storeRejection)
    #expect(attempts.storingRejection)
    #expect(attempts.next(after: .content) == .giveUp)
  }

  @Test func anUnknownErrorGetsFiveAttemptsThenTheSameTreatment() {
    var attempts = StoreAttempts()
    for _ in 1..<StoreAttempts.unknownFailuresAllowed {
      #expect(attempts.next(after: .unknown) == .retry)
    }
    #expect(attempts.next(after: .unknown) == .storeRejection)
    for _ in 1..<StoreAttempts.unknownFailuresAllowed {
      #expect(attempts.next(after: .unknown) == .retry)
    }
    #expect(attempts.next(after: .unknown) == .giveUp)
  }

  @Test(arguments: [
    ("22P05", DatabaseFailureClass.content), ("23514", .content), ("08006", .outage),
    ("40001", .outage), ("57P01", .outage), ("P0001", .unknown), ("XX000", .unknown),
  ])
  func databaseErrorsKeepTheirClass(state: String, expected: DatabaseFailureClass) {
    #expect(StoreAttempts.failureClass(of: refused(state)) == expected)
  }

  @Test func anErrorThatIsNoDatabaseErrorIsUnknown() {
    #expect(StoreAttempts.failureClass(of: CancellationError()) == .unknown)
  }

  @Test func theRejectionNamesTheOutcomeAndTheSQLStateNeverTheServersMessage() {
    let detail = StoreAttempts.rejectionDetail(
      refusing: .failed(.gatewayError, detail: "x"), error: refused("23514", constraint: "c_small"))
    #expect(
      detail
        == "storing gateway_error failed: SQLSTATE 23514, class 23 (integrity constraint violation), constraint c_small"
    )
    let data = StoreAttempts.rejectionDetail(refusing: .captured([1]), error: refused("22P05"))
    #expect(data == "storing captured failed: SQLSTATE 22P05, class 22 (data exception)")
    #expect(!data.contains("refused"))
  }
}
