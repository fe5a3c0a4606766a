import Events
import Foundation
import Infrastructure
import Synchronization

/// Answers `gateway.mower.*.photo` like the real Device-Gateway: a JPEG with
/// `Content-Type: image/jpeg`, or a JSON error, after a latency; or nothing at all.
final class Simulator: Service {
  let options: SimulatorOptions
  let frames: FrameLibrary
  let nats: NATSClient
  let logger: Logger
  private let random: Mutex<SplitMix64>
  private let counts = Mutex<[String: Int]>([:])

  init(options: SimulatorOptions, frames: FrameLibrary, nats: NATSClient, logger: Logger) {
    self.options = options
    self.frames = frames
    self.nats = nats
    self.logger = logger
    random = Mutex(SplitMix64(seed: options.seed ?? UInt64.random(in: 0...UInt64.max)))
  }

  func run() async throws {
    let subjects = Subjects(prefix: options.subjectPrefix)
    // A queue group, so several simulators share the load like gateway replicas.
    let requests = try nats.subscribe(subjects.photoRequestWildcard, queue: "gateway-simulator")
    try await nats.flush()
    logger.info(
      "camera simulator listening",
      [
        "subject": subjects.photoRequestWildcard, "frames": frames.frames.count,
        "latency_ms": "\(options.latencyMs)",
      ])
    let reporter = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(10))
        let snapshot = counts.withLock { $0 }
        if !snapshot.isEmpty { logger.info("answers so far", snapshot) }
      }
    }
    defer { reporter.cancel() }
    await withDiscardingTaskGroup { group in
      for await request in requests {
        guard let reply = request.reply else { continue }
        let mower = mowerID(in: request.subject, prefix: subjects.prefix)
        let (behaviour, latency) = choose(for: mower)
        counts.withLock { $0[behaviour.name, default: 0] += 1 }
        logger.info(
          "photo request", ["mower_id": mower, "answer": behaviour.name, "latency_ms": latency])
        group.addTask { await self.answer(reply: reply, behaviour: behaviour, latencyMs: latency) }
      }
    }
  }

  private func mowerID(in subject: String, prefix: String) -> String {
    // <prefix>gateway.mower.<id>.photo
    let parts = subject.dropFirst(prefix.count).split(separator: ".")
    return parts.count >= 4 ? parts[2...(parts.count - 2)].joined(separator: ".") : subject
  }

  private func choose(for mower: String) -> (Behaviour, Int) {
    random.withLock { random in
      let latency = Int.random(in: options.latencyMs, using: &random)
      if let fixed = options.perMower[mower] {
        return (fixed.behaviour, fixed.latencyMs ?? latency)
      }
      var draw = Double.random(in: 0..<1, using: &random)
      for (behaviour, share) in options.shares {
        if draw < share { return (behaviour, latency) }
        draw -= share
      }
      return (.photo(size: nil), latency)
    }
  }

  private func answer(reply: String, behaviour: Behaviour, latencyMs: Int) async {
    try? await Task.sleep(for: .milliseconds(latencyMs))
    do {
      switch behaviour {
      case .photo(let size):
        try nats.publish(reply, frame(size: size), contentType: "image/jpeg")
      case .asleep: try error("asleep", to: reply)
      case .noCamera: try error("no_camera", to: reply)
      case .busy: try error("busy", to: reply)
      case .otherError: try error("overheated", to: reply)
      case .garbage:
        let bytes = random.withLock { rng in
          (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }
        try nats.publish(reply, bytes, contentType: "image/jpeg")
      case .oversized:
        try nats.publish(reply, FrameLibrary.synthetic(size: 600_000), contentType: "image/jpeg")
      case .truncated:
        let frame = frames.frames[0]
        try nats.publish(reply, Array(frame.prefix(frame.count / 2)), contentType: "image/jpeg")
      case .silent:
        break
      case .malformed(let malformed):
        let (data, contentType) = malformed.reply
        try nats.publish(reply, data, contentType: contentType)
      case .twice:
        try nats.publish(reply, frame(size: nil), contentType: "image/jpeg")
        try error("busy", to: reply)
      }
    } catch {
      logger.warning("answering failed", ["error": error])
    }
  }

  /// A synthetic frame of `size` bytes, or one of the library's at random.
  private func frame(size: Int?) -> [UInt8] {
    size.map(FrameLibrary.synthetic)
      ?? random.withLock { frames.frames[Int.random(in: 0..<frames.frames.count, using: &$0)] }
  }

  private func error(_ code: String, to reply: String) throws {
    try nats.publish(
      reply, WireCoding.encode(CameraErrorReply(error: code)), contentType: "application/json")
  }
}

/// A small seedable generator, so a simulator run can be repeated exactly.
struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
