/// Wakes a stage's loop: rung by a NATS doorbell subject or by the stage itself; waiting
/// also ends after a timeout, which is the stage's periodic sweep (ADR 0001).
public actor Doorbell {
  private var rung = false
  private var waiter: CheckedContinuation<Void, Never>?
  /// The sweep timer of the current wait, cancelled when the bell rings first: a stage
  /// woken 100 times a second must not leave 100 sleeping timers behind each second.
  private var timer: Task<Void, Never>?
  private var generation = 0

  public init() {}

  public func ring() {
    rung = true
    if let waiter {
      self.waiter = nil
      timer?.cancel()
      timer = nil
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
      timer = Task {
        do { try await Task.sleep(for: timeout) } catch { return }
        self.expire(mine)
      }
    }
    rung = false
  }

  private func expire(_ generation: Int) {
    guard generation == self.generation, let waiter else { return }
    self.waiter = nil
    timer = nil
    waiter.resume()
  }

  /// Rings this doorbell for every message on `subject` until the task is cancelled. With
  /// `queue`, each message rings one of the replicas listening in that queue group, not all
  /// of them: one claim per wake-up instead of one per replica, of which all but one found
  /// nothing (issue 9). A wake-up lost with a replica costs the others their sweep.
  public nonisolated func listen(to subject: String, on nats: NATSClient, queue: String? = nil)
    throws -> Task<Void, Never>
  {
    let subscription = try nats.subscribe(subject, queue: queue, bufferLimit: 16)
    return Task {
      for await _ in subscription { await self.ring() }
    }
  }
}
