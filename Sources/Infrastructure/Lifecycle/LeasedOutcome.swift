/// Records the outcome of one leased item (a push sent or failed), the one way every
/// delivery stage does it: an outage is waited out; an outcome PostgreSQL refuses, or one
/// failing in ways nobody can class (after `unknownFailuresAllowed` tries), is given up, and
/// then the item's lease lapses and it is done again later (which its stage makes harmless:
/// a collapse id, a `Topic`), never retried here for ever. Stopping gives up at once, the
/// same way.
public struct LeasedOutcome: Sendable {
  public static let unknownFailuresAllowed = 5

  /// What the log and metrics call the item: "delivery".
  public let what: String
  /// Counted when an outcome is given up.
  public let givenUpMetric: String
  public let logger: Logger
  public let metrics: Metrics

  public init(what: String, givenUpMetric: String, logger: Logger, metrics: Metrics) {
    self.what = what
    self.givenUpMetric = givenUpMetric
    self.logger = logger
    self.metrics = metrics
  }

  /// Runs `write` until it succeeds or the outcome is given up; `fields` name the item in
  /// the log.
  public func record(_ fields: [String: any Sendable], _ write: () async throws -> Void) async {
    var backoff = Backoff(initial: 0.1, maximum: 2)
    var attempts = 0
    while true {
      attempts += 1
      do {
        try await write()
        return
      } catch {
        let failureClass = (error as? DatabaseError)?.failureClass ?? .unknown
        var logged = fields
        logged["error"] = error
        if failureClass == .content
          || (failureClass == .unknown && attempts >= Self.unknownFailuresAllowed)
        {
          metrics.increment(givenUpMetric)
          logged["class"] = failureClass.rawValue
          logger.error(
            "recording a \(what) outcome refused; given up until its lease lapses", logged)
          return
        }
        logger.warning("recording a \(what) outcome failed, retrying", logged)
        guard await backoff.wait() else { return }
      }
    }
  }
}
