import Testing

@testable import APNsSandbox

@Suite("Behaviour specs")
struct BehaviourSpecTests {
  @Test(
    "valid specs",
    arguments: [
      ("200", Behaviour.Action.answer(.accepted), nil as Int?),
      ("400", .answer(Answer(status: 400, reason: "BadDeviceToken")), nil),
      ("403", .answer(Answer(status: 403, reason: "InvalidProviderToken")), nil),
      (
        "403:ExpiredProviderToken", .answer(Answer(status: 403, reason: "ExpiredProviderToken")),
        nil
      ),
      ("410", .answer(Answer(status: 410, reason: "Unregistered")), nil),
      (
        "410:1700000000000",
        .answer(Answer(status: 410, reason: "Unregistered", timestamp: 1_700_000_000_000)), nil
      ),
      ("429", .answer(Answer(status: 429, reason: "TooManyRequests")), nil),
      ("500", .answer(Answer(status: 500, reason: "InternalServerError")), nil),
      ("503:Shutdown", .answer(Answer(status: 503, reason: "Shutdown")), nil),
      ("500x2", .answer(Answer(status: 500, reason: "InternalServerError")), 2),
      (
        "403:ExpiredProviderTokenx1", .answer(Answer(status: 403, reason: "ExpiredProviderToken")),
        1
      ),
      ("slow:2000", .slow(milliseconds: 2000), nil),
      ("slow:50x3", .slow(milliseconds: 50), 3),
      ("goaway", .goawayAfterAnswer, nil),
      ("goaway:after", .goawayAfterAnswer, nil),
      ("goaway:instead", .goawayInstead, nil),
      ("goaway:insteadx1", .goawayInstead, 1),
      ("drop", .drop, nil),
      ("dropx10", .drop, 10),
    ])
  func valid(spec: String, action: Behaviour.Action, times: Int?) throws {
    let behaviour = try Behaviour(parsing: spec)
    #expect(behaviour.action == action)
    #expect(behaviour.times == times)
    #expect(behaviour.spec == spec)
  }

  @Test(
    "invalid specs are refused",
    arguments: [
      "", "x2", "500x0", "500x", "999", "404", "200:Fine", "slow", "slow:", "slow:fast",
      "slow:-5", "410:soon", "goaway:later", "drop:now", "403:", "403:Bad Reason", "500 ",
      "DROP",
    ])
  func invalid(spec: String) {
    #expect(throws: Behaviour.Invalid.self) { try Behaviour(parsing: spec) }
  }
}
