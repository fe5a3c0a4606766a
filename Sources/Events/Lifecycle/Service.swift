import Dispatch
import FoundationEssentials
import Glibc

/// A long-running part of a process, in the shape of swift-service-lifecycle: `run` returns
/// when the work is done or the task is cancelled.
public protocol Service: Sendable {
  func run() async throws
}

/// Runs a service until it ends or the process gets SIGTERM or SIGINT, which cancel it so
/// that it can finish the unit of work in hand and stop cleanly.
public enum ServiceRunner {
  public static func run(_ service: some Service, logger: Logger) async -> Int32 {
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

    let work = Task { try await service.run() }
    let watcher = Task {
      for await number in signals {
        logger.info("stopping", ["signal": number == SIGTERM ? "SIGTERM" : "SIGINT"])
        work.cancel()
        return
      }
    }
    do {
      try await work.value
      watcher.cancel()
      logger.info("stopped")
      return 0
    } catch is CancellationError {
      watcher.cancel()
      logger.info("stopped")
      return 0
    } catch {
      watcher.cancel()
      logger.error("failed", ["error": String(describing: error)])
      return 1
    }
  }
}
