/// The one loop of every leased stage (photos, pushes): claim as much work as there is room
/// for below the in-flight cap, start each item, claim again at once after a full batch,
/// otherwise wait for the doorbell or the one-second sweep. A failed claim (PostgreSQL
/// away) is retried with backoff. It stops taking work when a graceful shutdown is
/// requested; the items started go on in the caller's task group.
public struct ClaimLoop: Sendable {
  /// What is claimed, for the log: "photo reservations", "deliveries".
  public let what: String
  public let maxInFlight: Int
  /// The most items one claim statement takes.
  public let batchSize: Int
  public let logger: Logger

  public init(what: String, maxInFlight: Int, batchSize: Int, logger: Logger) {
    self.what = what
    self.maxInFlight = maxInFlight
    self.batchSize = batchSize
    self.logger = logger
  }

  /// - Parameters:
  ///   - inFlight: the items this worker holds now.
  ///   - claim: claims up to the given number of items.
  ///   - start: starts one claimed item (in `group`), counting it in `inFlight`.
  public func run<Item>(
    in group: inout DiscardingTaskGroup, doorbell: Doorbell,
    inFlight: () async -> Int,
    claim: (Int) async throws -> [Item],
    start: (Item, inout DiscardingTaskGroup) async -> Void
  ) async {
    var backoff = Backoff()
    while !GracefulShutdown.shouldStopTakingWork {
      let room = maxInFlight - (await inFlight())
      let limit = min(room, batchSize)
      var claimed: [Item] = []
      if limit > 0 {
        do {
          claimed = try await claim(limit)
          backoff.reset()
        } catch {
          logger.warning("claiming \(what) failed, retrying", ["error": error])
          guard await backoff.wait() else { return }
          continue
        }
      }
      for item in claimed { await start(item, &group) }
      // A full batch means more may be waiting: claim again at once.
      if limit > 0, claimed.count == limit { continue }
      await doorbell.wait(timeout: .seconds(1))
    }
  }
}
