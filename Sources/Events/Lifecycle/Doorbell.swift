/// Wakes a stage's loop: rung by a NATS doorbell subject or by the stage itself; waiting
/// also ends after a timeout, which is the stage's periodic sweep (ADR 0001).
public actor Doorbell {
  private var rung = false
  private var waiter: CheckedContinuation<Void, Never>?
  private var generation = 0

  public init() {}

  public func ring() {
    rung = true
    if let waiter {
      self.waiter = nil
      waiter.resume()
    }
  }

  /// Returns at once if rung since the last wait, else when rung or after `timeout`.
  public func wait(timeout: Duration) async {
    if rung {
      rung = false
      return
    }
    generation += 1
    let mine = generation
    await withCheckedContinuation { continuation in
      waiter = continuation
      Task {
        try? await Task.sleep(for: timeout)
        self.expire(mine)
      }
    }
    rung = false
  }

  private func expire(_ generation: Int) {
    guard generation == self.generation, let waiter else { return }
    self.waiter = nil
    waiter.resume()
  }

  /// Rings this doorbell for every message on `subject` until the task is cancelled.
  public nonisolated func listen(to subject: String, on nats: NATSClient) throws -> Task<
    Void, Never
  > {
    let subscription = try nats.subscribe(subject, bufferLimit: 16)
    return Task {
      for await _ in subscription { await self.ring() }
    }
  }
}
