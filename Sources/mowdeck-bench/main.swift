import Events
import Foundation
import TestSupport

/// Benchmarks that print a table. Run through `scripts/bench.sh`, which builds in release
/// mode and starts throwaway servers (the same harness as the tests).
let arguments = Array(CommandLine.arguments.dropFirst())
guard let which = arguments.first else {
  FileHandle.standardError.write(
    Data(
      "usage: mowdeck-bench fanout [--rate N] [--seconds N] [--alarms N]\n       mowdeck-bench photo [--photos N] [--in-flight N]\n       mowdeck-bench prune [--events N] [--rate N]\n       mowdeck-bench apns [--pushes N] [--rate N] [--seconds N] [--camera-ms N]\n"
        .utf8))
  exit(2)
}

func option(_ name: String, _ fallback: Int) -> Int {
  guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count,
    let value = Int(arguments[index + 1])
  else { return fallback }
  return value
}

do {
  let db = try await TestDatabase.make()
  let nats = try NATSClient.connect(
    url: try TestServers.natsURL(), name: "bench", logger: TestServers.logger)
  switch which {
  case "fanout":
    let benchmark = FanoutBenchmark(
      db: db, nats: nats, rate: option("rate", 200), seconds: option("seconds", 10),
      throughputAlarms: option("alarms", 5000), replicaCounts: [1, 2])
    print("fanout: publish -> committed decision, 3 recipients per alarm, 1,000 mowers")
    print(try await benchmark.run())
  case "photo":
    let benchmark = PhotoBenchmark(
      db: db, nats: nats, photos: option("photos", 300), inFlight: option("in-flight", 500))
    print("photo: camera reply -> committed row (PhotoWorker, retention on every write)")
    print(try await benchmark.run())
  case "apns":
    let benchmark = APNsBenchmark(
      db: db, nats: nats, pushes: option("pushes", 10_000), rate: option("rate", 200),
      seconds: option("seconds", 10), cameraMs: option("camera-ms", 20_000))
    print(
      "apns: pushes over one HTTP/2 connection to the sandbox; alarm to push with a slow camera")
    print(try await benchmark.run())
  case "prune":
    let benchmark = PruneBenchmark(
      db: db, nats: nats, events: option("events", 1_000_000), rate: option("rate", 200))
    print("prune: 1,000,000 old events removed in batches of 5,000 while alarms flow")
    print(try await benchmark.run())
  default:
    FileHandle.standardError.write(Data("unknown benchmark \(which)\n".utf8))
    exit(2)
  }
} catch {
  FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
  exit(1)
}
