import Events
import Infrastructure
import Testing

@testable import PhotoWorker

/// ADR 0019 with the contract's two conditions (docs/interfaces.md#camera-request-and-replies): no
/// shedding in a burst that fits the budget, none for requests taken over after a crash.
@Suite struct HeldBytesBudgetTests {
  let photo = 300_000

  /// The gauge as `/metrics` shows it.
  func gauge(_ metrics: Metrics) -> Int? {
    let line = metrics.render().split(separator: "\n").first {
      $0.hasPrefix(HeldBytesBudget.gauge + " ")
    }
    return line.flatMap { Double($0.split(separator: " ")[1]) }.map { Int($0) }
  }

  @Test func aBurstOfPhotosThatFitsIsAdmittedWhateverErrorRepliesCameAlongside() {
    let metrics = Metrics()
    let budget = HeldBytesBudget(limit: 2 * photo, metrics: metrics)
    // Error replies held, not yet judged, when the photos arrive.
    #expect(budget.admit(18, takenOver: false))
    #expect(budget.admit(photo, takenOver: false))
    #expect(budget.admit(1024, takenOver: false))
    #expect(budget.admit(photo, takenOver: false))
    #expect(budget.held == 2 * photo + 18 + 1024)
    #expect(gauge(metrics) == 2 * photo + 18 + 1024)
    // The burst's photos fill it: one more fresh photo is shed.
    #expect(!budget.admit(photo, takenOver: false))
    for bytes in [18, photo, 1024, photo] { budget.release(bytes) }
    #expect(budget.held == 0)
    #expect(gauge(metrics) == 0)
  }

  @Test func photosOfRequestsTakenOverAreAdmittedBeyondTheBudget() {
    let budget = HeldBytesBudget(limit: 524_288, metrics: Metrics())
    for _ in 0..<10 { #expect(budget.admit(photo, takenOver: true)) }
    #expect(budget.held == 10 * photo)
    // While they are held, a fresh request's photo is still judged by the budget.
    #expect(!budget.admit(photo, takenOver: false))
    for _ in 0..<10 { budget.release(photo) }
    #expect(budget.admit(photo, takenOver: false))
  }

  @Test(arguments: [false, true])
  func aReplyOverThePhotoLimitIsRefusedWhateverTheRoom(takenOver: Bool) {
    let budget = HeldBytesBudget(limit: 64 << 20, metrics: Metrics())
    #expect(!budget.admit(524_289, takenOver: takenOver))
    #expect(budget.admit(524_288, takenOver: takenOver))
  }

  @Test func racingAdmissionsNeverPassTheBudget() async {
    let budget = HeldBytesBudget(limit: 10 * photo, metrics: Metrics())
    let admitted = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<50 { group.addTask { budget.admit(photo, takenOver: false) } }
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(admitted == 10)
    #expect(budget.held == 10 * photo)
  }
}
