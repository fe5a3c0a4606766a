import Dispatch
import FoundationEssentials
import Glibc

/// A long-running part of a process, in the shape of swift-service-lifecycle: `run` returns
/// when the work is done, when `GracefulShutdown.current` was requested and the work in
/// hand is finished, or when the task is cancelled.
public protocol Service: Sendable {
  func run() async throws
}

/// Runs a service until it ends or the process is asked to stop. Stopping has two phases:
/// the first SIGTERM or SIGINT requests a graceful shutdown (no new work; what is in hand
/// finishes), and when `grace` has passed the service is cancelled. A second signal ends
/// the process at once. The status is 0 when the service ended or was stopped, 2 when it
/// met a `StartRefusal` (its one line goes to stderr), 1 for any other failure.
public enum ServiceRunner {
  /// How long a graceful shutdown may take before the work is cancelled: below Docker's
  /// default ten seconds between SIGTERM and SIGKILL.
  public static let defaultGrace: Duration = .seconds(8)

  public static func run(
    _ service: some Service, logger: Logger, grace: Duration = defaultGrace
  ) async -> Int32 {
    MemoryTuning.apply()
    let (signals, continuation) = AsyncStream.makeStream(
      of: Int32.self, bufferingPolicy: .bufferingNewest(4))
    var sources: [any DispatchSourceSignal] = []
    for signalNumber in [SIGTERM, SIGINT] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler { continuation.yield(signalNumber) }
      source.resume()
      sources.append(source)
    }
    defer { for item in sources { item.cancel() } }
    return await run(service, logger: logger, grace: grace, signals: signals) { number in
      exit(128 + number)
    }
  }

  /// The same, with the signals from `signals` and the second one's effect in
  /// `onSecondSignal` (the process's exit), so that tests can play both.
  public static func run(
    _ service: some Service, logger: Logger, grace: Duration, signals: AsyncStream<Int32>,
    onSecondSignal: @escaping @Sendable (Int32) -> Void
  ) async -> Int32 {
    let shutdown = GracefulShutdown()
    let work = Task {
      try await GracefulShutdown.$current.withValue(shutdown) { try await service.run() }
    }
    let watcher = Task {
      var deadline: Task<Void, Never>?
      defer { deadline?.cancel() }
      for await number in signals {
        let name = number == SIGTERM ? "SIGTERM" : number == SIGINT ? "SIGINT" : "\(number)"
        guard deadline == nil else {
          logger.warning("second signal: stopping at once", ["signal": name])
          onSecondSignal(number)
          return
        }
        logger.info(
          "stopping: no new work, finishing what is in hand",
          ["signal": name, "grace_ms": Int(grace.components.seconds * 1000)])
        shutdown.request()
        deadline = Task {
          do { try await Task.sleep(for: grace) } catch { return }
          logger.warning("grace period over: cancelling the work still in hand")
          work.cancel()
        }
      }
    }
    let status: Int32
    do {
      try await work.value
      status = 0
    } catch is CancellationError {
      status = 0
    } catch let refusal as any StartRefusal {
      StandardError.write(Redaction.redact("\(logger.component): \(refusal.description)\n"))
      status = 2
    } catch {
      logger.error("failed", ["error": String(describing: error)])
      status = 1
    }
    watcher.cancel()
    if status == 0 { logger.info("stopped") }
    return status
  }
}
