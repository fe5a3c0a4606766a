import Events
import Foundation
import Infrastructure
import TestSupport

/// Benchmarks that print a table. Run through `scripts/bench.sh`, which builds in release
/// mode and starts throwaway servers (the same harness as the tests).
let arguments = Array(CommandLine.arguments.dropFirst())
guard let which = arguments.first else {
  FileHandle.standardError.write(
    Data(
      "usage: mowdeck-bench fanout [--rate N] [--seconds N] [--alarms N] [--replicas N]\n       mowdeck-bench photo [--photos N] [--in-flight N] [--flood N]\n       mowdeck-bench prune [--events N] [--alarms N] [--rate N]\n       mowdeck-bench apns [--pushes N] [--rate N] [--seconds N] [--camera-ms N]\n       mowdeck-bench webpush [--deliveries N] [--subscriptions N]\n       mowdeck-bench fcm [--deliveries N] [--devices N]\n       mowdeck-bench ntfy [--deliveries N] [--topics N]\n       mowdeck-bench floors [--count N]\n       mowdeck-bench pipeline [--rate N] [--seconds N] [--camera-ms N] [--timeouts-percent N] [--phones-per-second N] [--replicas N] [--out DIR]\n       mowdeck-bench pipeline --ramp [N,N,...] [--step-seconds N] [--camera-ms N] [--timeouts-percent N] [--replicas N] [--out DIR]\n       mowdeck-bench matrix [--seconds N] [--out DIR]\n       mowdeck-bench soak [--minutes N] [--rate N] [--out DIR]\n"
        .utf8))
  exit(2)
}

func option(_ name: String, _ fallback: Int) -> Int {
  guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count,
    let value = Int(arguments[index + 1])
  else { return fallback }
  return value
}

/// `--name N,N,...`: nil without `--name`, `fallback` when no list follows it.
func listOption(_ name: String, _ fallback: [Int]) -> [Int]? {
  guard let index = arguments.firstIndex(of: "--" + name) else { return nil }
  guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") else {
    return fallback
  }
  let values = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
  return values.isEmpty ? fallback : values
}

/// Prints at once, unbuffered, so a long matrix or soak shows its progress in a file.
func print(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Where the CSV files for the plots go.
let outDirectory: URL = {
  if let index = arguments.firstIndex(of: "--out"), index + 1 < arguments.count {
    return URL(fileURLWithPath: arguments[index + 1])
  }
  return URL(fileURLWithPath: ".local/bench")
}()

func appendRun(_ result: PipelineResult, file: String) throws {
  let url = outDirectory.appendingPathComponent(file)
  try FileManager.default.createDirectory(at: outDirectory, withIntermediateDirectories: true)
  if !FileManager.default.fileExists(atPath: url.path) {
    try (PipelineResult.runColumns + "\n").write(to: url, atomically: true, encoding: .utf8)
  }
  let handle = try FileHandle(forWritingTo: url)
  try handle.seekToEnd()
  try handle.write(contentsOf: Data((result.runLine + "\n").utf8))
  try handle.close()
}

/// The settings the pipeline and soak runs share, from the command line.
func pipelineSettings() -> PipelineSettings {
  var settings = PipelineSettings()
  settings.rate = option("rate", 100)
  settings.cameraMs = option("camera-ms", 5000)
  settings.timeouts = Double(option("timeouts-percent", 20)) / 100
  settings.phonesPerSecond = option("phones-per-second", 10)
  settings.replicas = option("replicas", 2)
  return settings
}

/// One channel worker against its double, `--deliveries` to as many devices as the option
/// named `devices` says (100 unless given), in a schema of its own.
func channelBenchmark<Harness: BenchedDouble>(_: Harness.Type, devices deviceOption: String)
  async throws -> String
{
  try await ChannelBenchmark<Harness>(
    db: try await TestDatabase.make(), deliveries: option("deliveries", 5000),
    devices: option(deviceOption, 100)
  ).run()
}

do {
  // Each benchmark makes its own schema (the pipeline runs one per run).
  let nats = try NATSClient.connect(
    url: try TestServers.natsURL(), name: "bench", logger: TestServers.logger)
  switch which {
  case "fanout":
    let benchmark = FanoutBenchmark(
      db: try await TestDatabase.make(), nats: nats, rate: option("rate", 200),
      seconds: option("seconds", 10),
      throughputAlarms: option("alarms", 5000),
      replicaCounts: option("replicas", 0) > 0 ? [option("replicas", 0)] : [1, 2])
    print("fanout: publish -> committed decision, 3 recipients per alarm, 1,000 mowers")
    print(try await benchmark.run())
  case "photo":
    let benchmark = PhotoBenchmark(
      db: try await TestDatabase.make(), nats: nats, photos: option("photos", 300),
      inFlight: option("in-flight", 500), floodPhotos: option("flood", 4500))
    print("photo: camera reply -> committed row (PhotoWorker, retention on every write)")
    print(try await benchmark.run())
  case "apns":
    let benchmark = APNsBenchmark(
      db: try await TestDatabase.make(), nats: nats, pushes: option("pushes", 10_000),
      rate: option("rate", 200),
      seconds: option("seconds", 10), cameraMs: option("camera-ms", 20_000))
    print(
      "apns: pushes over one HTTP/2 connection to the sandbox; alarm to push with a slow camera")
    print(try await benchmark.run())
  case "webpush":
    print("webpush: deliveries per second from one WebPushWorker to the Web Push double (HTTPS)")
    print(try await channelBenchmark(WebPushSandboxHarness.self, devices: "subscriptions"))
  case "fcm":
    print("fcm: deliveries per second from one FCMWorker to the FCM double (HTTPS, OAuth)")
    print(try await channelBenchmark(FCMSandboxHarness.self, devices: "devices"))
  case "ntfy":
    print("ntfy: deliveries per second from one NtfyWorker to the ntfy double (HTTPS)")
    print(try await channelBenchmark(NtfySandboxHarness.self, devices: "topics"))
  case "prune":
    let benchmark = PruneBenchmark(
      db: try await TestDatabase.make(), nats: nats, events: option("events", 1_000_000),
      alarms: option("alarms", 100_000), rate: option("rate", 200))
    print(
      "prune: old events, then old alarms with their inbox items and deliveries, removed in"
        + " batches of 5,000 while alarms flow")
    print(try await benchmark.run())
  case "floors":
    let paces: [Int?] = [nil, 1000, 100, 10]
    let benchmark = FloorPacingBenchmark(
      nats: nats, count: option("count", 300), paces: paces)
    print("floors: on a quiet machine, back to back and spaced out (requests a second)")
    print(try await benchmark.run())
  case "pipeline" where arguments.contains("--ramp"):
    // Issue 24: rising rates on one stack, to find the highest it sustains.
    var settings = RampSettings()
    settings.rates = listOption("ramp", RampSettings.defaultRates) ?? RampSettings.defaultRates
    settings.stepSeconds = option("step-seconds", 30)
    settings.pipeline = pipelineSettings()
    let result = try await RampBenchmark(nats: nats, settings: settings).run()
    print(result.table())
    print(result.summary())
    try result.write(to: outDirectory)
  case "pipeline":
    var settings = pipelineSettings()
    settings.seconds = option("seconds", 30)
    let result = try await PipelineBenchmark(nats: nats, settings: settings).run()
    print(result.table())
    print(result.verdicts(soak: false).joined(separator: "\n"))
    try result.write(to: outDirectory)
    try appendRun(result, file: "runs.csv")
  case "matrix":
    // Issue 9: does the push latency follow the camera? Every rate with every camera.
    try? FileManager.default.removeItem(at: outDirectory.appendingPathComponent("matrix.csv"))
    var summary = TextTable(
      "alarms/s", "camera", "pushes/s", "photos stored / failed", "push median", "push p99",
      "push max", "p99 / floor", "p99 / loaded floors", "largest RSS", "backlog after 90 s")
    for rate in [10, 100, 500] {
      for camera in [500, 5000, 20000] {
        var settings = PipelineSettings()
        settings.rate = rate
        settings.cameraMs = camera
        settings.seconds = option("seconds", 30)
        let result = try await PipelineBenchmark(nats: nats, settings: settings).run()
        print(result.table() + "\n")
        try result.write(to: outDirectory)
        try appendRun(result, file: "matrix.csv")
        summary.add(
          "\(rate)", "\(camera) ms",
          String(
            format: "%.0f", Double(result.collected.pushes) / max(result.collected.pushSpan, 1)),
          "\(result.collected.alarmToStored.count) / \(result.collected.photosFailed)",
          ms(result.push.median), ms(result.push.p99), ms(result.push.maximum),
          String(format: "%.1fx", result.pushRatio),
          result.loadedRatio.map { String(format: "%.1fx", $0) } ?? "",
          String(format: "%.1f MiB", result.maxPeakRSS),
          "\(result.backlog)")
      }
    }
    print("matrix: alarm -> push against the camera's latency (20% of requests never answered)")
    print(summary.render())
  case "soak":
    var settings = pipelineSettings()
    settings.seconds = option("minutes", 10) * 60
    settings.warmUp = min(120, settings.seconds / 4)
    settings.name = "soak"
    let result = try await PipelineBenchmark(nats: nats, settings: settings).run()
    print(result.table())
    print(result.verdicts(soak: true).joined(separator: "\n"))
    try result.write(to: outDirectory)
  default:
    FileHandle.standardError.write(Data("unknown benchmark \(which)\n".utf8))
    exit(2)
  }
} catch {
  FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
  exit(1)
}
